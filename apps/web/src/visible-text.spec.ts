import { revealHidden, revealHiddenIn } from './visible-text';

describe('revealHidden', () => {
  it.each<[string, string]>([
    ['plain text', 'plain text'],
    ['中文与 English 🙂', '中文与 English 🙂'],
    ['evil\u202e.com', 'evil⟦U+202E⟧.com'],
    ['a\u200bb\u200dc', 'a⟦U+200B⟧b⟦U+200D⟧c'],
    // By Unicode's properties, not a list: a browser drops these too.
    ['evil.c\u{1bca0}om', 'evil.c⟦U+1BCA0⟧om'],
    ['DR\u{1d173}OP', 'DR⟦U+1D173⟧OP'],
    ['\u2066x\u2069', '⟦U+2066⟧x⟦U+2069⟧'],
    ['x\ufeff', 'x⟦U+FEFF⟧'],
    ['tag\u{e0041}', 'tag⟦U+E0041⟧'],
  ])('%j -> %j', (text, expected) => {
    expect(revealHidden(text)).toBe(expected);
  });

  it('reaches every string of a payload', () => {
    expect(revealHiddenIn({ answer: 'a\u202eb', references: [{ title: 't\u200b' }], n: 3 })).toEqual({
      answer: 'a⟦U+202E⟧b',
      references: [{ title: 't⟦U+200B⟧' }],
      n: 3,
    });
  });
});
