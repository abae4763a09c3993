import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatById } from './formats';
import { byteRangeOf, endOffsetOf, Probe, startOffsetOf, timeIndexOf, TIME_SLACK_MS } from './log-time-index';

/** A fake file: records at fixed offsets (sorted), each probe the first record at or after an offset. */
const probeOver = (records: Probe[]) => async (offset: number) =>
  records.find((record) => record.offset >= offset) ?? null;
const KB = 1024;
// 64 records every 64 KiB, at minutes 0..63.
const even = Array.from({ length: 64 }, (_, i) => ({ offset: i * 64 * KB, at: i * 60_000 }));
const SIZE = 64 * 64 * KB;

describe('startOffsetOf / endOffsetOf', () => {
  it.each([
    ['before the first record', -1, 0],
    ['at the first record', 0, 0],
    ['in the middle', 40 * 60_000, 40 * 64 * KB],
    ['after the last record', 100 * 60_000, 63 * 64 * KB],
  ])('start %s: never after the first record at or after it', async (_name, at, latest) => {
    const start = await startOffsetOf(SIZE, at, probeOver(even));
    expect(start).toBeLessThanOrEqual(latest);
    // Never more than the stop span (256 KiB) of extra reading.
    expect(latest - start).toBeLessThanOrEqual(256 * KB);
    expect(even.filter((record) => record.offset < start).every((record) => record.at < at)).toBe(true);
  });

  it.each([
    ['before the first record', -1, 0],
    ['in the middle', 40 * 60_000, 41 * 64 * KB],
    ['after the last record', 100 * 60_000, SIZE],
  ])('end %s: never before the last record at or before it', async (_name, at, earliest) => {
    const end = await endOffsetOf(SIZE, 0, at, probeOver(even));
    expect(end).toBeGreaterThanOrEqual(earliest);
    expect(end - earliest).toBeLessThanOrEqual(256 * KB + 64 * KB);
    expect(even.filter((record) => record.offset >= end).every((record) => record.at > at)).toBe(true);
  });

  it('reads more, never less, where probes find no record (an unreadable stretch)', async () => {
    const holes = even.filter((record) => record.offset < 20 * 64 * KB || record.offset >= 50 * 64 * KB);
    const start = await startOffsetOf(SIZE, 55 * 60_000, probeOver(holes));
    expect(start).toBeLessThanOrEqual(55 * 64 * KB);
    const end = await endOffsetOf(SIZE, 0, 10 * 60_000, probeOver(holes));
    expect(end).toBeGreaterThanOrEqual(11 * 64 * KB);
  });
});

describe('timeIndexOf / byteRangeOf over real files', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'time-index-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const start = Date.parse('2026-12-05T00:00:00Z');
  const jsonLine = (minute: number, i: number) =>
    JSON.stringify({
      timestamp: new Date(start + minute * 60_000).toISOString(),
      message: `m${i} ${'x'.repeat(200)}`,
    });
  const plan = (name: string, text: string, format = formatById('json')) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    const context = {
      timeZone: 'UTC',
      referenceTime: start,
      fields: { timestamp: ['timestamp'], level: ['level'], service: ['service'], message: ['message'] },
    };
    return { path, format, context, size: Buffer.byteLength(text), modified: 1 };
  };
  const window = (fromMinute: number, toMinute: number) => ({
    from: start + fromMinute * 60_000,
    to: start + toMinute * 60_000,
  });

  it('searches a time-ordered file by offset: the range covers the window and skips most of the file', async () => {
    const lines = Array.from({ length: 24 * 60 * 10 }, (_, i) => jsonLine(i / 10, i));
    const file = plan('ordered.jsonl', `${lines.join('\n')}\n`);
    const index = await timeIndexOf(file);
    expect(index).toEqual({ first: start, last: start + (24 * 60 - 0.1) * 60_000, ordered: true });
    const range = await byteRangeOf(file, index, window(600, 660));
    const text = Buffer.from(`${lines.join('\n')}\n`);
    const read = text.subarray(range.from, Math.min(range.to, text.length)).toString('utf8');
    // Every record of the window (with the slack) is inside the range, and most of the file is not.
    const wanted = lines.filter((_, i) => i / 10 >= 600 - TIME_SLACK_MS / 60_000 && i / 10 <= 660);
    expect(wanted.every((line) => read.includes(line))).toBe(true);
    expect(range.to - range.from).toBeLessThan(text.length / 5);
  });

  it('skips a time-ordered file whose range is far from the window', async () => {
    const file = plan('old.jsonl', `${Array.from({ length: 100 }, (_, i) => jsonLine(i, i)).join('\n')}\n`);
    expect(await byteRangeOf(file, await timeIndexOf(file), window(600, 660))).toEqual({
      from: 0,
      to: 0,
      skipped: true,
    });
  });

  it.each([
    ['not time-ordered', Array.from({ length: 20_000 }, (_, i) => jsonLine((i * 7919) % 1440, i)).join('\n')],
    ['without readable timestamps', Array.from({ length: 2000 }, (_, i) => `plain text ${i}`).join('\n')],
  ])('reads a file %s whole (fail safe)', async (name, text) => {
    const file = plan(`${name}.jsonl`, `${text}\n`);
    const index = await timeIndexOf(file);
    expect(index.ordered).toBe(false);
    expect(await byteRangeOf(file, index, window(600, 660))).toEqual({
      from: 0,
      to: Infinity,
      skipped: false,
    });
  });

  it('probes multi-line records at their first line (stack-trace lines are skipped)', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 6000; i += 1) {
      const stamp = new Date(start + i * 10_000).toISOString().replace('T', ' ').replace('Z', '');
      lines.push(
        `${stamp} ERROR [main] c.X - failure ${i}`,
        '\tat com.example.A.b(A.java:1)',
        '\tat com.example.C.d(C.java:2)',
      );
    }
    const file = plan('app.log', `${lines.join('\n')}\n`, formatById('logback'));
    const index = await timeIndexOf(file);
    expect(index.ordered).toBe(true);
    const range = await byteRangeOf(file, index, window(500, 510));
    const text = Buffer.from(`${lines.join('\n')}\n`);
    const read = text.subarray(range.from, Math.min(range.to, text.length)).toString('utf8');
    expect(read.startsWith('2026-12-05 ')).toBe(true);
    expect(read).toContain('failure 3000\n');
  });
});
