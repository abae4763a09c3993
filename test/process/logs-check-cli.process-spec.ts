import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs the built CLI as a user would, with the server's default topic globs and no field settings. */
function logsCheck(dir: string) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('LOGS_JSONL_')) delete env[key];
  return spawnSync(process.execPath, ['dist/apps/server/src/cli/logs-check.js', dir], {
    encoding: 'utf8',
    env,
    timeout: 30_000,
  });
}

describe('logs-check CLI (built)', () => {
  it('reports fields, time range and levels of unconfigured exports, and exits 0 when all is readable', () => {
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
    expect(run.stdout).toContain('application-billing.jsonl  topic: APPLICATION');
    expect(run.stdout).toContain('lines: 3, readable: 3, unreadable: 0');
    expect(run.stdout).toContain('time range: 2026-12-03T13:27:07.624Z .. 2026-12-03T13:30:00.000Z');
    expect(run.stdout).toContain('levels: ERROR 1, WARN 1, INFO 1, DEBUG 0');
    expect(run.stdout).toContain('timestamp: ts (3); level: lvl (3); service: svc (3); message: msg (3)');
    expect(run.stdout).toContain('topic ACCESS: no file matches access*.jsonl');
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
      'lines: 3, readable: 1, unreadable: 2 (not JSON 1, no timestamp 1, no message 0; first at line 2)',
    );
    expect(run.stdout).toContain('notes.txt  topic: none');
  });

  it('refuses a missing directory with exit 2', () => {
    const run = logsCheck('/no/such/dir');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('/no/such/dir is not a readable directory');
  });
});
