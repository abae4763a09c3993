import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '../support/test-timeouts';

/** Runs the built CLI as a user would, with the server's default rules and zone. */
function logsCheck(dir: string) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('LOGS_')) delete env[key];
  return spawnSync(process.execPath, ['dist/apps/server/src/cli/logs-check.js', dir], {
    encoding: 'utf8',
    env,
    timeout: scaled(30_000),
  });
}

describe('logs-check CLI (built)', () => {
  it('reports format, topic, time range, levels and services of unconfigured files, and exits 0 when all is readable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'logs-check-'));
    writeFileSync(
      join(dir, 'application-billing.jsonl'),
      [
        JSON.stringify({ ts: '2026-12-03 13:27:07,624', lvl: 'E', svc: 'billing', msg: 'pool exhausted' }),
        JSON.stringify({ ts: '1796304500000', lvl: 'W', svc: 'billing', msg: 'slow' }),
        JSON.stringify({ ts: 1796304600, lvl: 30, svc: 'billing', msg: 'ok' }),
      ].join('\n'),
    );
    const run = logsCheck(dir);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      'application-billing.jsonl  format: json (detected)  topic: APPLICATION (rule)',
    );
    expect(run.stdout).toContain('lines: 3, records: 3, joined to a record: 0, unreadable: 0 (0%)');
    expect(run.stdout).toContain(
      'time range: 2026-12-03T13:27:07.624Z .. 2026-12-03T13:30:00.000Z (times without zone read as UTC)',
    );
    expect(run.stdout).toContain('levels: ERROR 1, WARN 1, INFO 1, DEBUG 0');
    expect(run.stdout).toContain('services: billing (3)');
  });

  it('counts unreadable lines with their first line number and exits 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'logs-check-'));
    writeFileSync(
      join(dir, 'application.jsonl'),
      [
        JSON.stringify({ timestamp: '2026-12-03T13:27:07Z', message: 'fine' }),
        '2026-12-03 13:27:08 ERROR plain text',
        JSON.stringify({ when: 'later', message: 'no time' }),
      ].join('\n'),
    );
    writeFileSync(join(dir, 'notes.txt'), 'not a log');
    const run = logsCheck(dir);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      'lines: 3, records: 1, joined to a record: 0, unreadable: 2 (66.7%) [NOT_JSON 1, NO_TIMESTAMP 1; first at line 2]',
    );
    expect(run.stdout).toContain(
      'notes.txt  NOT READ: no known log format reads its first lines; set format= in LOGS_FILE_RULES',
    );
  });

  it('refuses a missing directory with exit 2', () => {
    const run = logsCheck('/no/such/dir');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('/no/such/dir is not a readable directory');
  });
});
