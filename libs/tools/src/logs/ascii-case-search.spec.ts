import { anchorOf, asciiCaseScan, asciiCaseSearch } from './ascii-case-search';

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

describe('anchorOf', () => {
  it.each([
    ['the rarest letter', 'hikaripool', 2],
    ['a letter rarer than digits', 'a1', 0],
    ['_ over common letters', 'ste_en', 3],
    ['the last of equally rare bytes', 'zz', 1],
    ['the case does not matter', 'heK', 2],
  ])('%s', (_name, needle, expected) => {
    expect(anchorOf(Buffer.from(needle.toLowerCase()))).toBe(expected);
  });
});

describe('asciiCaseScan', () => {
  const hits = (needle: string, text: string, from = 0, to?: number) => {
    const bytes = Buffer.from(text, 'latin1');
    const scan = asciiCaseScan(needle)(bytes, from, to ?? bytes.length);
    const found: number[] = [];
    for (let at = scan.next(from); at >= 0; at = scan.next(at + 1)) found.push(at);
    return found;
  };

  it.each([
    ['every hit, any case', 'kafka', 'KAFKA kafka KaFkA', 0, undefined, [0, 6, 12]],
    ['an anchor byte at the range start or end', 'ok', 'okxxOK', 0, undefined, [0, 4]],
    ['none past `to`, even in the bytes after it', 'ok', 'xxokok', 0, 4, [2]],
    ['none before `from`', 'ok', 'okxok', 1, undefined, [3]],
    ['overlapping hits', 'kk', 'kkk', 0, undefined, [0, 1]],
    ['an anchor byte in a near miss', 'kafka', 'kafk kafkb kafka', 0, undefined, [11]],
    ['a needle of one byte', 'q', 'aQbq', 0, undefined, [1, 3]],
    ['a needle of digits (no upper case)', '504', 'x504 15040', 0, undefined, [1, 6]],
  ])('%s', (_name, needle, text, from, to, expected) => {
    expect(hits(needle, text, from, to)).toEqual(expected);
  });

  it('finds every hit when the anchor byte is common (it goes on with the skip search)', () => {
    const text = `${'k'.repeat(5000)}xKAFKAx${'kx'.repeat(3000)}kafka`;
    const expected = [5001, text.length - 5];
    expect(hits('kafka', text)).toEqual(expected);
  });

  it('goes on with the skip search it is given (another needle) where the anchor is common', () => {
    const text = `${'k'.repeat(5000)}xKAFKAx-LONGER-NEEDLE-kafka`;
    const bytes = Buffer.from(text, 'latin1');
    const scan = asciiCaseScan('kafka', asciiCaseSearch('needle'))(bytes, 0, bytes.length);
    // The k's before KAFKA give up the anchor, so the skip search finds the next NEEDLE instead.
    expect(scan.next(0)).toBe(text.indexOf('NEEDLE'));
    expect(scan.next(text.indexOf('NEEDLE') + 1)).toBe(-1);
  });

  it('starts the other needle’s skip search where the call started, not where the anchors gave up', () => {
    // NEEDLE sits before the run of anchor bytes that makes the scan give up: a line holding both
    // needles must still be found by the other one.
    const text = `x-NEEDLE-${'k'.repeat(5000)}-kafka`;
    const bytes = Buffer.from(text, 'latin1');
    const scan = asciiCaseScan('kafka', asciiCaseSearch('needle'))(bytes, 0, bytes.length);
    expect(scan.next(0)).toBe(text.indexOf('NEEDLE'));
  });

  it('finds what a lower-cased indexOf finds, over generated text', () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const alphabet = 'kKaA_1\n';
    for (let round = 0; round < 300; round += 1) {
      // Long enough that some rounds give up on the anchor and go on with the skip search.
      const text = Array.from({ length: 40 + (next() % 400) }, () => alphabet[next() % alphabet.length]).join(
        '',
      );
      const needle = Array.from({ length: 1 + (next() % 4) }, () => 'ka_1'[next() % 4]).join('');
      const expected: number[] = [];
      const lower = text.toLowerCase();
      for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) expected.push(at);
      expect([needle, text, hits(needle, text)]).toEqual([needle, text, expected]);
    }
  });

  it('tries the anchors again after a stretch of skip search, at a line start', () => {
    // Lines dense with the anchor byte give it up; 'kafka' far past them is found by its anchors again
    // (the other needle's skip search alone would never find it: the line holds no NEEDLE).
    const dense = `${'k '.repeat(40)}\n`.repeat(5000);
    const text = `${dense}plain line\n${'x'.repeat(300 * 1024)}\nlate kafka\n`;
    const bytes = Buffer.from(text, 'latin1');
    const scan = asciiCaseScan('kafka', asciiCaseSearch('needle'))(bytes, 0, bytes.length);
    expect(scan.next(0)).toBe(text.indexOf('kafka'));
  });

  it('ends a stretch of skip search at a line start, never inside a line', () => {
    // The 16th k (offset 30) gives up the anchors; the stretch would end 256 KiB after it, inside the
    // second line, between its 'kafka' (skip-searched for NEEDLE only) and its NEEDLE (anchors only).
    const cut = 31 + 256 * 1024;
    const first = `${'k '.repeat(20)}\n`;
    const text = `${first}${'x'.repeat(cut - first.length - 20)} kafka ${'x'.repeat(30)} NEEDLE\nend\n`;
    const bytes = Buffer.from(text, 'latin1');
    const scan = asciiCaseScan('kafka', asciiCaseSearch('needle'))(bytes, 0, bytes.length);
    expect(text.indexOf('kafka')).toBeLessThan(cut);
    expect(scan.next(0)).toBe(text.indexOf('NEEDLE'));
  });

  it('finds every line holding both needles, whichever search covers it, over stretches of both', () => {
    let seed = 5;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const words = ['k', 'kk', 'K', 'kafka', 'KAFKA', 'needle', 'Needle', 'x', 'lag'];
    const lines: string[] = [];
    for (let size = 0; size < 900 * 1024;) {
      // Stretches where every line is dense with the anchor byte, and stretches where it is rare.
      const dense = Math.floor(size / (150 * 1024)) % 2 === 0;
      const count = 1 + (next() % 12);
      const line = Array.from({ length: count }, () =>
        dense ? words[next() % words.length] : words[3 + (next() % 6)],
      ).join(' ');
      lines.push(line);
      size += line.length + 1;
    }
    const text = lines.join('\n');
    const bytes = Buffer.from(text, 'latin1');
    const scan = asciiCaseScan('kafka', asciiCaseSearch('needle'))(bytes, 0, bytes.length);
    const found = new Set<number>();
    for (let at = 0; at < bytes.length;) {
      const hit = scan.next(at);
      if (hit < 0) break;
      const start = bytes.lastIndexOf(10, hit) + 1;
      found.add(start);
      const newline = bytes.indexOf(10, hit);
      at = newline < 0 ? bytes.length : newline + 1;
    }
    let offset = 0;
    const missed: string[] = [];
    for (const line of lines) {
      const lower = line.toLowerCase();
      if (lower.includes('kafka') && lower.includes('needle') && !found.has(offset)) missed.push(line);
      offset += line.length + 1;
    }
    expect(missed).toEqual([]);
  });
});
