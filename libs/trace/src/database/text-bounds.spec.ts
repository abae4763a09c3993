import { cutText, wellFormed } from './text-bounds';

const EMOJI = '\u{1F525}'; // two UTF-16 code units
const isWellFormed = (text: string) =>
  !/[\uD800-\uDFFF]/.test(text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''));

describe('wellFormed', () => {
  it.each([
    ['plain', 'abc', 'abc'],
    ['a pair kept', `a${EMOJI}b`, `a${EMOJI}b`],
    ['a lone high surrogate', 'a\uD83Db', 'a\uFFFDb'],
    ['a lone low surrogate', 'a\uDD25b', 'a\uFFFDb'],
    ['a high surrogate at the end', 'ab\uD83D', 'ab\uFFFD'],
    ['two highs then a low: the first is lone', '\uD83D\uD83D\uDD25', `\uFFFD${EMOJI}`],
    ['reversed pair', '\uDD25\uD83D', '\uFFFD\uFFFD'],
  ])('%s', (_name, input, expected) => {
    expect(wellFormed(input)).toBe(expected);
  });
});

describe('cutText', () => {
  it.each([
    ['shorter than the limit', 'abc', 5, 'abc'],
    ['exactly the limit', 'abcde', 5, 'abcde'],
    ['cut, with the marker', 'abcdef', 3, 'abc…'],
    ['counts an emoji as one code point', `${EMOJI.repeat(3)}`, 3, EMOJI.repeat(3)],
    ['never splits a pair', `ab${EMOJI}cd`, 3, `ab${EMOJI}…`],
    ['limit falling inside a pair in code units', `a${EMOJI}${EMOJI}`, 2, `a${EMOJI}…`],
    ['repairs before counting', 'a\uD83Dbc', 2, 'a\uFFFD…'],
  ])('%s', (_name, input, max, expected) => {
    expect(cutText(input, max, '…')).toBe(expected);
  });

  it('leaves well-formed text whatever the limit (every cut point of a mixed string)', () => {
    const text = `x${EMOJI}汉${EMOJI}${EMOJI}y\u{20BB7}z`;
    for (let max = 0; max <= 10; max += 1) {
      const cut = cutText(text, max);
      expect(isWellFormed(cut)).toBe(true);
      expect([...cut].length).toBe(Math.min(max, [...text].length));
      expect(text.startsWith(cut)).toBe(true);
    }
  });
});
