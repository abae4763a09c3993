import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_JSONL_FIELDS } from './jsonl-log-source';
import { inspectLogSource, logFileWarning } from './log-file-inspection';

describe('inspectLogSource / logFileWarning', () => {
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
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('samples each topic file, names topics without files and warns only about the unreadable file', async () => {
    const { reports, topicsWithoutFiles } = await inspectLogSource(
      {
        directory: dir,
        topics: { APPLICATION: ['app-*.jsonl'], ACCESS: ['access*.jsonl'] },
        fields: DEFAULT_JSONL_FIELDS,
      },
      3,
    );
    expect(topicsWithoutFiles).toEqual(['ACCESS']);
    const [bad, good] = reports;
    expect(good).toMatchObject({
      lines: 1,
      readable: 1,
      levels: { ERROR: 1 },
      from: '2026-12-03T13:27:07.624Z',
    });
    expect(logFileWarning(good)).toBeNull();
    // the sample stops after 3 non-empty lines
    expect(bad).toMatchObject({
      lines: 3,
      readable: 1,
      unreadable: { NOT_JSON: 1, NO_TIMESTAMP: 1 },
      firstUnreadableLine: 2,
    });
    expect(logFileWarning(bad)).toMatch(
      /app-bad\.jsonl \(APPLICATION\): 2 of 3 lines .*1 NOT_JSON, 1 NO_TIMESTAMP; first at line 2/,
    );
  });
});
