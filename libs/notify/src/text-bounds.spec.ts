import { boundText, inertChatText, utf8Bytes } from './text-bounds';

describe('boundText', () => {
  it.each([
    ['short text unchanged', 'abc', 10, Infinity, 'abc'],
    ['cut by code points with the marker', 'abcdef', 3, Infinity, 'abc…'],
    ['an emoji is one code point, never split', '😀😀😀', 2, Infinity, '😀😀…'],
    ['a byte bound cuts on code points, marker counted', '池池池池', 100, 10, '池池…'],
    ['a lone surrogate becomes U+FFFD', 'a\uD800b', 10, Infinity, 'a\uFFFDb'],
  ])('%s', (_name, text, points, bytes, expected) => {
    const bound = boundText(text, points, bytes);
    expect(bound).toBe(expected);
    expect(utf8Bytes(bound)).toBeLessThanOrEqual(bytes);
  });
});

describe('inertChatText', () => {
  it('replaces mention and link openers by fullwidth look-alikes, nothing else', () => {
    expect(inertChatText('<@all> [a](http://x) @138 ok')).toBe('＜＠all＞ ［a］(http://x) ＠138 ok');
  });
});
