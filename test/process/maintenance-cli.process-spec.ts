import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, createConnection, RowDataPacket } from 'mysql2/promise';
import { TEST_MYSQL } from '../support/test-env';
import { scaled } from '../support/test-timeouts';

const DAY_MS = 24 * 60 * 60 * 1000;
const ago = (ms: number) => new Date(Date.now() - ms);

/**
 * The built maintenance CLIs as an operator runs them, against their own database: they boot only what
 * they need, so no start-up retention sweep purges anything before (or instead of) `npm run purge`.
 */
describe('maintenance CLIs (built): purge and seed-knowledge', () => {
  const database = `superbiz_e2e_cli_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const documentsDir = mkdtempSync(join(tmpdir(), 'cli-documents-'));
  let db: Connection;

  function cli(script: string, args: string[] = []) {
    return spawnSync(process.execPath, [`dist/apps/server/src/cli/${script}.js`, ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        DB_NAME: database,
        DOCUMENTS_DIR: documentsDir,
        AUDIT_RETENTION_DAYS: '30',
        TRACE_RETENTION_DAYS: '180',
        RUN_ABANDON_AFTER_MINUTES: '30',
      },
      timeout: scaled(60_000),
    });
  }

  async function ids(sql: string): Promise<string[]> {
    const [rows] = await db.query<RowDataPacket[]>(sql);
    return rows.map((row) => String(Object.values(row)[0]));
  }

  beforeAll(async () => {
    const migrated = cli('migrate', ['run', '--create-database']);
    expect(migrated.status).toBe(0);
    db = await createConnection({ ...TEST_MYSQL, database });
    await db.query(
      'INSERT INTO chat_session (session_id, created_at, updated_at) VALUES (?, ?, ?), (?, ?, ?)',
      ['old-session', ago(200 * DAY_MS), ago(200 * DAY_MS), 'new-session', ago(DAY_MS), ago(DAY_MS)],
    );
    await db.query(
      'INSERT INTO diagnosis_run (run_id, session_id, query, status, created_at) VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?), (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)',
      [
        ...['old-run', 'old-session', 'q', 'SUCCESS', ago(200 * DAY_MS)],
        ...['old-run-2', 'old-session', 'q', 'SUCCESS', ago(200 * DAY_MS)],
        ...['done-run', 'new-session', 'q', 'SUCCESS', ago(DAY_MS)],
        ...['stuck-run', 'new-session', 'q', 'RUNNING', ago(2 * 60 * 60 * 1000)],
      ],
    );
    // old-run's audit: step 1 goes only with its session, step 2 is also past AUDIT_RETENTION_DAYS.
    await db.query(
      "INSERT INTO agent_reasoning_audit (run_id, step_index, role, content_source, created_at) VALUES ('done-run', 1, 'r', 'UNAVAILABLE', ?), ('done-run', 2, 'r', 'UNAVAILABLE', ?), ('old-run', 1, 'r', 'UNAVAILABLE', ?), ('old-run', 2, 'r', 'UNAVAILABLE', ?)",
      [ago(31 * DAY_MS), ago(29 * DAY_MS), ago(DAY_MS), ago(40 * DAY_MS)],
    );
    await db.query(
      "INSERT INTO agent_step (run_id, step_index, role, status, started_at, duration_ms) VALUES ('old-run', 1, 'r', 'OK', NOW(3), 1), ('old-run', 2, 'r', 'OK', NOW(3), 1), ('old-run-2', 1, 'r', 'OK', NOW(3), 1), ('done-run', 1, 'r', 'OK', NOW(3), 1)",
    );
    await db.query(
      "INSERT INTO tool_invocation (run_id, tool_name, status, evidence_status, started_at, duration_ms) VALUES ('old-run', 'query_logs', 'READY', 'EVIDENCE_FOUND', NOW(3), 1), ('done-run', 'query_logs', 'READY', 'EVIDENCE_FOUND', NOW(3), 1)",
    );
    await db.query(
      "INSERT INTO diagnosis_trace_event (run_id, phase, event_type) VALUES ('old-run', 'RUN', 'RUN_STARTED'), ('old-run', 'RUN', 'RUN_FINISHED'), ('old-run-2', 'RUN', 'RUN_STARTED'), ('done-run', 'RUN', 'RUN_STARTED')",
    );
  });

  afterAll(async () => {
    await db?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await db?.end();
    rmSync(documentsDir, { recursive: true, force: true });
  });

  it('seed-knowledge ingests the runbooks and purges nothing', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'seed-knowledge-'));
    writeFileSync(
      join(directory, 'disk-full.md'),
      '# Disk full runbook\n\nFree space under /var/log first.\n',
    );
    const result = cli('seed-knowledge', [directory]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('ingested disk-full.md as "Disk full runbook"\n');
    expect(await ids('SELECT title FROM knowledge_document')).toEqual(['Disk full runbook']);
    expect(await ids('SELECT session_id FROM chat_session ORDER BY session_id')).toEqual([
      'new-session',
      'old-session',
    ]);
    expect(await ids("SELECT status FROM diagnosis_run WHERE run_id = 'stuck-run'")).toEqual(['RUNNING']);
    expect(await ids('SELECT COUNT(*) FROM agent_reasoning_audit')).toEqual(['4']);
  });

  it('purge reports per table what it purged, the expired sessions’ runs and their rows included', async () => {
    const result = cli('purge');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(
      'purged rows: agent_reasoning_audit 3, agent_step 3, tool_invocation 1, diagnosis_trace_event 3, ' +
        'diagnosis_run 2, alert_notification 0, alert_group 0, chat_session 1 (2 reasoning-audit row(s) past AUDIT_RETENTION_DAYS); ' +
        'closed 1 abandoned run(s)\n',
    );
    expect(await ids('SELECT session_id FROM chat_session')).toEqual(['new-session']);
    expect(await ids('SELECT run_id FROM diagnosis_run ORDER BY run_id')).toEqual(['done-run', 'stuck-run']);
    expect(await ids("SELECT error_code FROM diagnosis_run WHERE run_id = 'stuck-run'")).toEqual([
      'ABANDONED',
    ]);
    expect(await ids('SELECT CONCAT(run_id, step_index) FROM agent_reasoning_audit')).toEqual(['done-run2']);
    for (const table of ['agent_step', 'tool_invocation']) {
      expect(await ids(`SELECT DISTINCT run_id FROM ${table}`)).toEqual(['done-run']);
    }
    // The closed run gets its RUN_FINISHED, like every run that ends.
    expect(
      await ids(
        "SELECT DISTINCT CONCAT(run_id, ':', IF(event_type = 'RUN_FINISHED', event_type, 'other')) FROM diagnosis_trace_event ORDER BY 1",
      ),
    ).toEqual(['done-run:other', 'stuck-run:RUN_FINISHED']);

    expect(cli('purge').stdout).toBe(
      'purged rows: agent_reasoning_audit 0, agent_step 0, tool_invocation 0, diagnosis_trace_event 0, ' +
        'diagnosis_run 0, alert_notification 0, alert_group 0, chat_session 0 (0 reasoning-audit row(s) past AUDIT_RETENTION_DAYS); ' +
        'closed 0 abandoned run(s)\n',
    );
  });
});
