import { parseJsonAnswer } from './json-answer';

describe('parseJsonAnswer', () => {
  it.each<[string, unknown]>([
    ['{"a":1}', { a: 1 }],
    ['  {"a":1}\n', { a: 1 }],
    ['```json\n{"a":1}\n```', { a: 1 }],
    ['```\n[1,2]\n```', [1, 2]],
    ['The answer is {"a":1}', undefined],
    ['', undefined],
  ])('%p', (text, value) => expect(parseJsonAnswer(text)).toEqual(value));
});
