import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLineChunks, readTextLines } from './log-line-reader';

describe('readTextLines', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'line-reader-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const read = async (text: string, maxLineBytes: number, range: { from?: number; to?: number } = {}) => {
    const path = join(dir, 'file.log');
    writeFileSync(path, text);
    const lines: string[] = [];
    const long: number[] = [];
    for await (const line of readTextLines(path, { maxLineBytes, ...range, onLong: (at) => long.push(at) })) {
      lines.push(line);
    }
    return { lines, long };
  };
  const big = (n: number, char = 'x') => char.repeat(n);

  it.each([
    ['short lines, CRLF and no final break', 'a\r\nb\nc', 16, ['a', 'b', 'c'], []],
    ['a line exactly at the cap is read', `${big(16)}\nb\n`, 16, [big(16), 'b'], []],
    [
      'a line one byte over the cap is skipped and named by offset',
      `a\n${big(17)}\nb\n`,
      16,
      ['a', 'b'],
      [2],
    ],
    ['a long last line without a break', `a\n${big(40)}`, 16, ['a'], [2]],
    ['several long lines between short ones', `${big(20)}\na\n${big(30, 'y')}\nb`, 16, ['a', 'b'], [0, 23]],
    ['empty lines are kept as empty', 'a\n\nb\n', 16, ['a', '', 'b'], []],
  ])('%s', async (_name, text, cap, lines, long) => {
    expect(await read(text, cap)).toEqual({ lines, long });
  });

  it('skips a line longer than two whole read chunks (8 MiB + 3) without holding it', async () => {
    const text = `first\n${big(8 * 1024 * 1024 + 3)}\nlast\n`;
    expect(await read(text, 1024)).toEqual({ lines: ['first', 'last'], long: [6] });
  });

  it('reads only [from, to)', async () => {
    expect(await read('aa\nbb\ncc\ndd\n', 16, { from: 3, to: 9 })).toEqual({ lines: ['bb', 'cc'], long: [] });
  });

  /** Lines and long-line offsets as a plain split reads them: the oracle for any chunk size. */
  const splitLines = (text: string, cap: number, from = 0) => {
    const bytes = Buffer.from(text, 'utf8');
    const lines: string[] = [];
    const long: number[] = [];
    for (let at = 0; at < bytes.length;) {
      const newline = bytes.indexOf(10, at);
      const stop = newline < 0 ? bytes.length : newline;
      if (stop - at > cap) long.push(from + at);
      else lines.push(bytes.toString('utf8', at, stop > at && bytes[stop - 1] === 13 ? stop - 1 : stop));
      at = stop + 1;
    }
    return { lines, long };
  };
  /** Deterministic text of short, empty, CRLF, multi-byte and over-the-cap lines. */
  const mixedText = (seed: number, lines: number) => {
    let state = seed;
    const next = (n: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % n;
    };
    const parts: string[] = [];
    for (let i = 0; i < lines; i += 1) {
      const kind = next(6);
      const body =
        kind === 0 ? '' : kind === 1 ? 'é中'.repeat(next(5)) : big(next(kind === 5 ? 60 : 20), 'ab'[next(2)]);
      parts.push(kind === 2 ? `${body}\r` : body);
    }
    return parts.join('\n') + (next(2) === 0 ? '\n' : '');
  };

  it.each([1, 2, 3, 7, 16, 64])(
    'reads the same lines as a plain split whatever the chunk size (%i bytes a read)',
    async (chunkBytes) => {
      const path = join(dir, `mixed-${chunkBytes}.log`);
      for (const seed of [1, 2, 3, 4, 5]) {
        const text = mixedText(seed * 7919 + chunkBytes, 80);
        writeFileSync(path, text);
        for (const cap of [4, 16, 33]) {
          const lines: string[] = [];
          const long: number[] = [];
          const read = readTextLines(path, { maxLineBytes: cap, chunkBytes, onLong: (at) => long.push(at) });
          for await (const line of read) lines.push(line);
          expect({ seed, cap, lines, long }).toEqual({ seed, cap, ...splitLines(text, cap) });
        }
      }
    },
  );

  it('stops reading when told to, and a read that fails rejects the iteration', async () => {
    const path = join(dir, 'stopping.log');
    writeFileSync(path, 'line\n'.repeat(1000));
    let chunks = 0;
    for await (const chunk of readLineChunks(path, {
      maxLineBytes: 64,
      chunkBytes: 50,
      stopped: () => chunks >= 3,
    })) {
      if (chunk.kind === 'lines') chunks += 1;
    }
    expect(chunks).toBe(3);
    await expect(async () => {
      for await (const _ of readLineChunks(dir, { maxLineBytes: 64 })) void _;
    }).rejects.toThrow(/EISDIR/);
  });

  it('a caller that stops early leaves no file open (the read under way ends first)', async () => {
    const path = join(dir, 'early.log');
    writeFileSync(path, 'line\n'.repeat(1000));
    const before = readdirSync('/proc/self/fd').length;
    for (let i = 0; i < 20; i += 1) {
      for await (const chunk of readLineChunks(path, { maxLineBytes: 64, chunkBytes: 50 })) {
        if (chunk.kind === 'lines') break;
      }
    }
    expect(readdirSync('/proc/self/fd').length).toBe(before);
  });
});
