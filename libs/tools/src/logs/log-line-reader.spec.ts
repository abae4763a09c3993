import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTextLines } from './log-line-reader';

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

  it('skips a line longer than a whole read chunk (2 MiB + 3) without holding it', async () => {
    const text = `first\n${big(2 * 1024 * 1024 + 3)}\nlast\n`;
    expect(await read(text, 1024)).toEqual({ lines: ['first', 'last'], long: [6] });
  });

  it('reads only [from, to)', async () => {
    expect(await read('aa\nbb\ncc\ndd\n', 16, { from: 3, to: 9 })).toEqual({ lines: ['bb', 'cc'], long: [] });
  });
});
