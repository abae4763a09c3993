import { ConfigValidationError } from '@app/config';
import { loadChatConfig } from './chat.config';

describe('loadChatConfig: the alert share', () => {
  it.each<[string, Record<string, string>, { maxInFlight: number; maxQueue: number }]>([
    ['defaults: two slots of 32, a queue of 20', {}, { maxInFlight: 2, maxQueue: 20 }],
    [
      'a small service keeps one slot for chats',
      { CHAT_MAX_IN_FLIGHT: '2' },
      { maxInFlight: 1, maxQueue: 20 },
    ],
    ['one slot in all: no alert share', { CHAT_MAX_IN_FLIGHT: '1' }, { maxInFlight: 0, maxQueue: 20 }],
    ['as set', { ALERT_MAX_IN_FLIGHT: '5', ALERT_MAX_QUEUE: '0' }, { maxInFlight: 5, maxQueue: 0 }],
  ])('%s', (_name, env, share) => {
    expect(loadChatConfig(env).alertShare).toEqual(share);
  });

  it.each<[Record<string, string>, RegExp]>([
    [
      { CHAT_MAX_IN_FLIGHT: '4', ALERT_MAX_IN_FLIGHT: '4' },
      /ALERT_MAX_IN_FLIGHT \(4\) must be less than CHAT_MAX_IN_FLIGHT \(4\)/,
    ],
    [{ ALERT_MAX_IN_FLIGHT: '0' }, /ALERT_MAX_IN_FLIGHT/],
    [{ ALERT_MAX_QUEUE: '-1' }, /ALERT_MAX_QUEUE/],
  ])('refuses %p naming the key', (env, message) => {
    expect(() => loadChatConfig(env)).toThrow(ConfigValidationError);
    expect(() => loadChatConfig(env)).toThrow(message);
  });
});
