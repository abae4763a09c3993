import { asciiCaseSearch } from './ascii-case-search';

const find = (needle: string, text: string, from = 0, to?: number) => {
  const bytes = Buffer.from(text, 'utf8');
  return asciiCaseSearch(needle)(bytes, from, to ?? bytes.length);
};

describe('asciiCaseSearch', () => {
  it.each([
    ['lower case in lower case', 'pool', 'a pool here', 0, undefined, 2],
    ['any mix of cases', 'hikaripool', 'x HikariPOOL-1', 0, undefined, 2],
    ['the first of several', 'ab', 'xxABxxab', 0, undefined, 2],
    ['from an offset', 'ab', 'xxABxxab', 3, undefined, 6],
    ['at the very start and end', 'ab', 'ab', 0, undefined, 0],
    ['absent', 'timeout', 'time out', 0, undefined, -1],
    ['not past `to` (a hit crossing it is not found)', 'abc', 'xxabc', 0, 4, -1],
    ['a hit ending exactly at `to`', 'abc', 'xxabcx', 0, 5, 2],
    ['a needle longer than the range', 'abcdef', 'abc', 0, undefined, -1],
    ['one byte', 'k', 'xxK', 0, undefined, 2],
    ['digits and _ compare exactly', 'a_1', 'A_1', 0, undefined, 0],
    ['_ is not a folded letter', '_', '\x7f_', 0, undefined, 1],
    ['a repeated last byte (the shift after a compare)', 'aab', 'aaaab', 0, undefined, 2],
    ['a needle that overlaps itself', 'abab', 'abaabab', 0, undefined, 3],
    ['non-ASCII bytes never fold into letters', 'k', '\u212a', 0, undefined, -1],
    ['non-ASCII needles compare exactly', 'é', 'É é', 0, undefined, 3],
    ['an empty needle is found where the range starts', '', 'abc', 1, undefined, 1],
  ])('%s', (_name, needle, text, from, to, expected) => {
    expect(find(needle, text, from, to)).toBe(expected);
  });

  it('finds what a lower-cased indexOf finds, over generated text', () => {
    // A small alphabet makes near misses and overlapping hits frequent.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const alphabet = 'aAbB_1\n';
    for (let round = 0; round < 300; round += 1) {
      const text = Array.from({ length: 60 }, () => alphabet[next() % alphabet.length]).join('');
      const needle = Array.from({ length: 1 + (next() % 4) }, () => 'ab_1'[next() % 4]).join('');
      const from = next() % 20;
      const expected = text.toLowerCase().indexOf(needle, from);
      expect([needle, text, from, find(needle, text, from)]).toEqual([needle, text, from, expected]);
    }
  });
});
