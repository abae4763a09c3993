import { parseIntent } from './intent-router';

describe('parseIntent', () => {
  it.each([
    ['DIAGNOSIS', 'DIAGNOSIS'],
    ['  KNOWLEDGE_QUERY\n', 'KNOWLEDGE_QUERY'],
    ['"SYSTEM_CHAT"', 'SYSTEM_CHAT'],
    ['SYSTEM_CHAT.', 'SYSTEM_CHAT'],
    ['diagnosis', null],
    ['DIAGNOSIS please', null],
    ['I think DIAGNOSIS', null],
    ['', null],
    ['DATABASE_QUERY', null],
  ])('%p -> %p', (text, intent) => expect(parseIntent(text)).toBe(intent));
});
