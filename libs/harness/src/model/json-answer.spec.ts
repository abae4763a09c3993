import { asciiStructure, jsonObjectsIn, parseJsonAnswer } from './json-answer';

describe('parseJsonAnswer', () => {
  it.each<[string, string, unknown]>([
    ['whole text', '{"a":1}', { a: 1 }],
    ['whole text with blanks', '  {"a":1}\n', { a: 1 }],
    ['one json fence', '```json\n{"a":1}\n```', { a: 1 }],
    ['one bare fence holding an array', '```\n[1,2]\n```', [1, 2]],
    ['prose + one fenced object', 'Here is the report:\n```json\n{"a":1}\n```\nHope it helps.', { a: 1 }],
    [
      'prose + a fenced non-object + one fenced object',
      'Plan:\n```\nstep 1\n```\nReport:\n```json\n{"a":1}\n```',
      { a: 1 },
    ],
    ['object + trailing remark', '{"a":"x } y"}\n\nLet me know if you need more.', { a: 'x } y' }],
    ['object with escaped quotes + remark', '{"a":"say \\"hi\\" {"}  done', { a: 'say "hi" {' }],
    ['two fenced objects (ambiguous)', '```json\n{"a":1}\n```\nor\n```json\n{"a":2}\n```', undefined],
    ['object + remark holding another brace (ambiguous)', '{"a":1} and also {"b":2}', undefined],
    ['prose + bare object', 'The answer is {"a":1}', { a: 1 }],
    ['Chinese prose + bare object', '根据以上调查结果，结论如下：\n{"a":1}\n', { a: 1 }],
    ['prose holding a brace + object (ambiguous)', 'see } then {"a":1}', undefined],
    ['prose + two bare objects (ambiguous)', 'Either {"a":1} or {"a":2}', undefined],
    ['fence with broken JSON', 'Report:\n```json\n{"a":\n```', undefined],
    ['unbalanced object + remark', '{"a":1 trailing', undefined],
    ['empty', '', undefined],
    [
      'JSON5: trailing commas, comments, single quotes, bare keys',
      "{a: 'x', // why\n b: [1, 2,],}",
      { a: 'x', b: [1, 2] },
    ],
    ['JSON5 in a fence', "```json\n{'a': 1,}\n```", { a: 1 }],
    [
      'full-width quotes, colons and commas',
      '{“a”：“连接池：耗尽”，“b”：［1，2］}',
      { a: '连接池：耗尽', b: [1, 2] },
    ],
    ['full-width punctuation inside an ASCII string is content', '{"a"："x，y：z"}', { a: 'x，y：z' }],
    ['a truncated object is not guessed', '{"a": "cut off', undefined],
    ['a bare word is not an object', 'DIAGNOSIS', undefined],
    ['Markdown is not JSON', '# Report\n\n**Conclusion**: the pool is exhausted', undefined],
  ])('%s', (_rule, text, value) => expect(parseJsonAnswer(text)).toEqual(value));
});

describe('asciiStructure', () => {
  it.each([
    ['{“a”：1}', '{"a":1}'],
    ['{"a"："“quoted”"}', '{"a":"“quoted”"}'],
    ['{“a”：“say "hi"”}', '{"a":"say \\"hi\\""}'],
    ["{'a'：'x：y'}", "{'a':'x：y'}"],
  ])('%p -> %p', (text, ascii) => expect(asciiStructure(text)).toBe(ascii));
});

describe('jsonObjectsIn', () => {
  it.each<[string, string, unknown[]]>([
    ['no object', 'no JSON here', []],
    ['one bare object', '{"a":1}', [{ a: 1 }]],
    ['prose with a placeholder brace, then the object', '已查询 {order_id} 的日志：\n{"a":1}', [{ a: 1 }]],
    ['two objects', 'Either {"a":1} or {"a":2}', [{ a: 1 }, { a: 2 }]],
    [
      'a fenced object and a bare one',
      '```json\n{"a":1}\n```\nthen {"b":{"c":2}}',
      [{ a: 1 }, { b: { c: 2 } }],
    ],
    ['braces inside strings', '{"a":"} {"} tail', [{ a: '} {' }]],
    ['an array is not an object', '[{"a":1}]', [{ a: 1 }]],
    ['unbalanced', '{"a":1', []],
  ])('%s', (_name, text, expected) => {
    expect(jsonObjectsIn(text)).toEqual(expected);
  });
});
