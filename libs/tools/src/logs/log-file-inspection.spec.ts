import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeLogFile, inspectLogDirectory, logFileWarning } from './log-file-inspection';

describe('inspectLogDirectory / logFileWarning', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'log-inspect-'));
    writeFileSync(join(dir, 'app-good.jsonl'), '{"ts":"2026-12-03 13:27:07,624","lvl":"E","msg":"x"}\n');
    writeFileSync(
      join(dir, 'app-bad.jsonl'),
      [
        '{"ts":1796304427,"msg":"ok"}',
        'plain text',
        '{"msg":"no time"}',
        '{"ts":1796304428,"msg":"ok"}',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'notes.txt'), 'just some words\nno log here\n');
    writeFileSync(join(dir, 'old.log.gz'), 'x');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists every file with format, topic, range and unreadable share; names the ones it cannot read', async () => {
    const { reports, problems } = await inspectLogDirectory({ directory: dir, rules: [], timeZone: 'UTC' });
    expect(
      reports.map((report) => [
        report.file,
        report.format,
        report.topic,
        report.records,
        report.unreadableLines,
      ]),
    ).toEqual([
      ['app-bad.jsonl', 'json', 'APPLICATION', 2, 2],
      ['app-good.jsonl', 'json', 'APPLICATION', 1, 0],
    ]);
    expect(problems).toEqual([
      { file: 'old.log.gz', reason: 'compressed; decompress it to have it read' },
      {
        file: 'notes.txt',
        reason: 'no known log format reads its first lines; set format= in LOGS_FILE_RULES',
      },
    ]);
    const [bad, good] = reports;
    expect(logFileWarning(good)).toBeNull();
    expect(logFileWarning(bad)).toMatch(
      /app-bad.jsonl \(json, APPLICATION\): 2 of 4 lines .*1 NOT_JSON, 1 NO_TIMESTAMP; first at line 2/,
    );
    expect(describeLogFile(good)).toBe(
      'app-good.jsonl: json, topic APPLICATION, services app-good, 2026-12-03T13:27:07.624Z .. 2026-12-03T13:27:07.624Z (zone-less times read as UTC), 1 records from 1 lines, unreadable 0 (0%)',
    );
  });

  it('counts a line over the cap as LINE_TOO_LONG at its line number, never reading it whole', async () => {
    const long = mkdtempSync(join(tmpdir(), 'log-inspect-long-'));
    try {
      const line = (n: number) => JSON.stringify({ ts: 1796304427 + n, msg: `ok ${n}` });
      writeFileSync(
        join(long, 'app.jsonl'),
        [line(1), `{"msg":"${'x'.repeat(3 * 1024 * 1024)}"}`, line(2)].join('\n'),
      );
      const { reports } = await inspectLogDirectory(
        { directory: long, rules: [], timeZone: 'UTC' },
        undefined,
        64 * 1024,
      );
      expect(reports[0]).toMatchObject({
        lines: 3,
        records: 2,
        unreadable: { LINE_TOO_LONG: 1 },
        unreadableLines: 1,
        firstUnreadableLine: 2,
      });
    } finally {
      rmSync(long, { recursive: true, force: true });
    }
  });
});
