import { decodeChatEvent } from './chat-events';

describe('decodeChatEvent', () => {
  it.each([
    [
      'metadata',
      '{"session_id":"s","run_id":"r"}',
      { event: 'metadata', data: { session_id: 's', run_id: 'r' } },
    ],
    ['queued', '{"ahead":4}', { event: 'queued', data: { ahead: 4 } }],
    ['done', '{"outcome":"FALLBACK"}', { event: 'done', data: { outcome: 'FALLBACK' } }],
    ['message', '{"a":1}', null],
    ['status', 'not json', null],
    ['status', '"a string"', null],
    ['content', 'null', null],
  ])('%s %s', (event, data, expected) => {
    expect(decodeChatEvent({ event, data })).toEqual(expected);
  });
});
