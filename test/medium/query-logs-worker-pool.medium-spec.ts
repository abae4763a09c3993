import { createWriteStream, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLogSource, FileLogSourceConfig } from '../../libs/tools/src/logs/file-log-source';
import { InlineLogScanner, LogScanPool } from '../../libs/tools/src/logs/log-scan-pool';
import { projectLogs } from '../../libs/tools/src/logs/query-logs-result-projector';
import type { LogQuery } from '../../libs/tools/src/logs/log-source.port';

const START = Date.parse('2026-12-05T00:00:00Z');
const line = (minute: number, level: string, message: string, extra: Record<string, string> = {}) =>
  JSON.stringify({
    timestamp: new Date(START + minute * 60_000).toISOString(),
    level,
    service: 'payment-service',
    message,
    ...extra,
  });

/** The query_logs scan through the worker pool over a real directory: long lines, links, cancellation, limits. */
describe('query_logs scans in the worker pool', () => {
  let dir: string;
  let outside: string;
  const pools: LogScanPool[] = [];
  const pool = (size: number) => {
    const created = new LogScanPool(size);
    pools.push(created);
    return created;
  };
  const config = (values: Partial<FileLogSourceConfig> = {}): FileLogSourceConfig => ({
    directory: dir,
    rules: [],
    timeZone: 'UTC',
    maxMatches: 20_000,
    maxRawBytes: 960 * 1024,
    maxLineBytes: 64 * 1024,
    ...values,
  });
  const window = (fromMinute: number, toMinute: number): Pick<LogQuery, 'startTime' | 'endTime'> => ({
    startTime: new Date(START + fromMinute * 60_000),
    endTime: new Date(START + toMinute * 60_000),
  });
  const signal = () => new AbortController().signal;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'log-pool-'));
    outside = mkdtempSync(join(tmpdir(), 'log-pool-outside-'));
    const app: string[] = [];
    for (let minute = 0; minute < 24 * 60; minute += 1) {
      app.push(line(minute, 'INFO', `handled request ${minute}`, { request_id: `req-${minute}` }));
      if (minute % 60 === 30)
        app.push(line(minute, 'ERROR', `HikariPool-1 - Connection is not available, timeout ${minute}`));
      // A 200 KiB line (over the 64 KiB cap) inside the searched window, holding the term.
      if (minute === 600) app.push(line(minute, 'ERROR', `timeout ${'x'.repeat(200 * 1024)}`));
    }
    writeFileSync(join(dir, 'application-app.jsonl'), `${app.join('\n')}\n`);
    // A rotated file kept under a dot directory (never listed itself), reached through a link inside.
    mkdirSync(join(dir, '.rotated'));
    writeFileSync(
      join(dir, '.rotated', 'application-old.jsonl'),
      `${line(610, 'ERROR', 'HikariPool-1 - Connection is not available, timeout from the linked file')}\n`,
    );
    symlinkSync(join(dir, '.rotated', 'application-old.jsonl'), join(dir, 'application-current.jsonl'));
    writeFileSync(join(outside, 'secret.jsonl'), `${line(610, 'ERROR', 'timeout secret')}\n`);
    symlinkSync(join(outside, 'secret.jsonl'), join(dir, 'application-escape.jsonl'));
    // A big file for cancellation: about 40 MB, read whole by an empty query.
    const big = createWriteStream(join(dir, 'application-big.jsonl'));
    for (let i = 0; i < 200; i += 1) {
      const chunk = Array.from({ length: 1000 }, (_, j) =>
        line((i * 1000 + j) / 150, 'INFO', `steady traffic ${i}-${j} ${'y'.repeat(120)}`),
      );
      if (!big.write(`${chunk.join('\n')}\n`)) await once(big, 'drain');
    }
    big.end();
    await once(big, 'finish');
  }, 120_000);

  afterAll(async () => {
    await Promise.all(pools.map((created) => created.close()));
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('finds the same events as a scan on the calling thread, following links inside the directory only', async () => {
    const query: LogQuery = { topic: 'APPLICATION', query: 'hikaripool timeout', ...window(540, 660) };
    const inPool = await new FileLogSource(config(), pool(2)).search(query, signal());
    const inline = await new FileLogSource(config(), new InlineLogScanner()).search(query, signal());
    expect(inPool).toEqual(inline);
    expect(inPool.events.map((event) => event.message)).toEqual([
      'HikariPool-1 - Connection is not available, timeout 570',
      'HikariPool-1 - Connection is not available, timeout from the linked file',
      'HikariPool-1 - Connection is not available, timeout 630',
    ]);
    expect(inPool.unreadable_files).toEqual([
      {
        file: 'application-escape.jsonl',
        reason: 'symbolic link leads outside the logs directory; not read',
      },
    ]);
  });

  it('skips a line over the cap, counts and names it, and keeps scanning', async () => {
    const raw = await new FileLogSource(config(), pool(1)).search(
      { topic: 'APPLICATION', query: 'timeout', ...window(590, 620) },
      signal(),
    );
    expect(raw.events.map((event) => event.message)).toEqual([
      'HikariPool-1 - Connection is not available, timeout from the linked file',
    ]);
    const app = raw.files!.find((file) => file.file === 'application-app.jsonl');
    expect(app).toMatchObject({ long_lines: 1, unreadable_lines: 1 });
    const result = projectLogs(raw, {
      maxPatterns: 10,
      maxEvents: 10,
      maxMessageChars: 300,
      maxTotalChars: 6000,
    }).result;
    expect(result.long_lines).toEqual([{ file: 'application-app.jsonl', count: 1 }]);
    expect(result.completeness).toMatchObject({ complete: false, unreadable_lines: 1 });
  });

  it('finds an id that is only in a mapped field, through the byte prefilter', async () => {
    const raw = await new FileLogSource(config(), pool(1)).search(
      { topic: 'APPLICATION', query: 'req-777', ...window(0, 24 * 60) },
      signal(),
    );
    expect(raw.events.map((event) => event.message)).toEqual(['handled request 777']);
  });

  it.each([
    ['the match count', { maxMatches: 5 }, 'MATCHES', 5],
    ['the evidence bytes', { maxRawBytes: 4096 + 3 * 200 + 4 * 1024 }, 'EVIDENCE_BYTES', undefined],
  ])('stops at %s, says so and where the searched window ends', async (_name, values, by, count) => {
    const raw = await new FileLogSource(config(values), pool(1)).search(
      { topic: 'APPLICATION', query: 'handled request', ...window(0, 24 * 60) },
      signal(),
    );
    expect(raw.match_limit).toMatchObject({ by, matches: raw.events.length });
    if (count !== undefined) expect(raw.events).toHaveLength(count);
    expect(raw.events.length).toBeGreaterThan(0);
    expect(Date.parse(raw.match_limit!.scanned_to)).toBeGreaterThanOrEqual(
      Date.parse(raw.events[raw.events.length - 1].timestamp),
    );
    expect(Buffer.byteLength(JSON.stringify(raw))).toBeLessThan(config(values).maxRawBytes);
  });

  it('rejects an aborted scan with the signal reason, and the worker takes the next scan', async () => {
    const shared = pool(1);
    const source = new FileLogSource(config(), shared);
    const controller = new AbortController();
    const scan = source.search({ topic: 'APPLICATION', query: '', ...window(0, 24 * 60) }, controller.signal);
    const reason = new Error('deadline');
    setImmediate(() => controller.abort(reason));
    await expect(scan).rejects.toBe(reason);
    const next = await source.search(
      { topic: 'APPLICATION', query: 'req-42', ...window(0, 24 * 60) },
      signal(),
    );
    expect(next.events.map((event) => event.message)).toEqual(['handled request 42']);
  });
});
