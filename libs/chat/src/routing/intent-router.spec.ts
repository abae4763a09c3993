import { parseIntent } from './intent-router';

describe('parseIntent', () => {
  it.each([
    ['DIAGNOSIS', 'DIAGNOSIS'],
    ['  KNOWLEDGE_QUERY\n', 'KNOWLEDGE_QUERY'],
    ['"SYSTEM_CHAT"', 'SYSTEM_CHAT'],
    ['SYSTEM_CHAT.', 'SYSTEM_CHAT'],
    ['diagnosis', 'DIAGNOSIS'],
    ['Diagnosis', 'DIAGNOSIS'],
    ['**DIAGNOSIS**', 'DIAGNOSIS'],
    ['`KNOWLEDGE_QUERY`', 'KNOWLEDGE_QUERY'],
    ['“SYSTEM_CHAT”', 'SYSTEM_CHAT'],
    ['<think>The user reports a timeout, maybe KNOWLEDGE_QUERY?</think>\n\nDIAGNOSIS', 'DIAGNOSIS'],
    ['<think>\nhmm\n</think>\n**Diagnosis**', 'DIAGNOSIS'],
    ['DIAGNOSIS\nThe user reports a failing payment.', 'DIAGNOSIS'],
    ['DIAGNOSIS please', 'DIAGNOSIS'],
    ['DIAGNOSIS: the user reports a failure', 'DIAGNOSIS'],
    ['I think DIAGNOSIS', null],
    ['DIAGNOSIS or KNOWLEDGE_QUERY', null],
    ['<think>unterminated DIAGNOSIS', null],
    ['', null],
    ['DATABASE_QUERY', null],
    ['DIAGNOSISX', null],
    ['PROBABLY_DIAGNOSIS', null],
  ])('%p -> %p', (text, intent) => expect(parseIntent(text)).toBe(intent));
});
