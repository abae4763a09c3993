import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Connection, createConnection } from 'mysql2/promise';
import { percentile, reportBench } from './support/bench-results';

/**
 * The retention purge against the size of its backlog, with a run in flight: the built `npm run purge`
 * in its own process deletes N expired sessions (each one ended run with 2 model steps and their audit,
 * 2 tool invocations and 4 timeline events: 12 rows a session) while this process writes a live run's
 * journal (a timeline row and its session row in one transaction) every 20 ms. Printed per size: the
 * purge's wall time and rate, and the live writes' p50/p99/max latency during the purge beside the same
 * figures with no purge. The goal: no live write fails, and none waits anywhere near a lock-wait timeout.
 */
const SIZES = (process.env.BENCH_PURGE_SESSIONS ?? '1000,10000,100000').split(',').map(Number);
const WRITE_EVERY_MS = 20;
const run = promisify(execFile);

async function main(): Promise<void> {
  const dbName = `superbiz_bench_purge_${Date.now().toString(36)}`;
  const connect = (database?: string) =>
    createConnection({
      host: process.env.DB_HOST ?? '127.0.0.1',
      user: process.env.DB_USER ?? 'root',
      password: process.env.DB_PASSWORD ?? '',
      timezone: 'Z',
      database,
    });
  const admin = await connect();
  await admin.query(`CREATE DATABASE \`${dbName}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const env = { ...process.env, DB_NAME: dbName };
  try {
    await run(process.execPath, ['dist/apps/server/src/cli/migrate.js', 'run'], { env });
    const db = await connect(dbName);
    const live = await connect(dbName);
    await live.query("INSERT INTO chat_session (session_id, owner_key_digest) VALUES ('live', ?)", [
      '0'.repeat(64),
    ]);
    await live.query(
      "INSERT INTO diagnosis_run (run_id, session_id, query, status) VALUES ('live-run', 'live', 'q', 'RUNNING')",
    );
    const baseline = await liveWrites(live, () => new Promise((resolve) => setTimeout(resolve, 2000)));
    const figures: Record<string, number | string> = {
      setup: 'built purge CLI in its own process; live journal writes from the bench process every 20 ms',
      rows_per_session: 12,
      live_write_p50_ms_no_purge: baseline.p50,
      live_write_p99_ms_no_purge: baseline.p99,
    };
    let inserted = 0;
    for (const size of SIZES) {
      await insertBacklog(db, inserted, size);
      inserted += size;
      let purgeMs = 0;
      let output = '';
      const during = await liveWrites(live, async () => {
        const started = performance.now();
        output = (
          await run(process.execPath, ['dist/apps/server/src/cli/purge.js'], { env, maxBuffer: 1 << 20 })
        ).stdout;
        purgeMs = performance.now() - started;
      });
      const purged = /chat_session (\d+)/.exec(output)?.[1] ?? '?';
      figures[`purge_s_at_${size}_sessions`] = purgeMs / 1000;
      figures[`purged_sessions_at_${size}`] = purged;
      figures[`purge_rows_per_s_at_${size}`] = (size * 12) / (purgeMs / 1000);
      figures[`live_write_p50_ms_during_${size}`] = during.p50;
      figures[`live_write_p99_ms_during_${size}`] = during.p99;
      figures[`live_write_max_ms_during_${size}`] = during.max;
      figures[`live_write_failures_during_${size}`] = during.failures;
    }
    reportBench('purge_backlog', figures);
    await db.end();
    await live.end();
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS \`${dbName}\``).catch(() => undefined);
    await admin.end();
  }
}

/** Live journal-shaped writes every WRITE_EVERY_MS for as long as `during` runs. */
async function liveWrites(
  live: Connection,
  during: () => Promise<void>,
): Promise<{ p50: number; p99: number; max: number; failures: number }> {
  const latencies: number[] = [];
  let failures = 0;
  let done = false;
  const writer = (async () => {
    while (!done) {
      const started = performance.now();
      try {
        await live.query('START TRANSACTION');
        await live.query(
          "INSERT INTO diagnosis_trace_event (run_id, phase, event_type) VALUES ('live-run', 'AGENT', 'MODEL_STEP')",
        );
        await live.query("UPDATE chat_session SET updated_at = NOW(3) WHERE session_id = 'live'");
        await live.query('COMMIT');
        latencies.push(performance.now() - started);
      } catch (error) {
        failures += 1;
        process.stderr.write(`live write failed: ${(error as { code?: string }).code ?? String(error)}\n`);
        await live.query('ROLLBACK').catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, WRITE_EVERY_MS));
    }
  })();
  await during();
  done = true;
  await writer;
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? 0,
    failures,
  };
}

/** `count` expired sessions (numbered from `from`), each with one ended run and its 10 child rows. */
async function insertBacklog(db: Connection, from: number, count: number): Promise<void> {
  const old = '2020-01-01 00:00:00.000';
  const BATCH = 2000;
  for (let start = from; start < from + count; start += BATCH) {
    const ids = Array.from(
      { length: Math.min(BATCH, from + count - start) },
      (_unused, index) => start + index,
    );
    await db.query(
      'INSERT INTO chat_session (session_id, owner_key_digest, created_at, updated_at) VALUES ?',
      [ids.map((id) => [`old-${id}`, '0'.repeat(64), old, old])],
    );
    await db.query('INSERT INTO diagnosis_run (run_id, session_id, query, status, created_at) VALUES ?', [
      ids.map((id) => [`old-run-${id}`, `old-${id}`, 'q', 'SUCCESS', old]),
    ]);
    await db.query(
      'INSERT INTO agent_step (run_id, step_index, role, attempt, status, started_at, duration_ms) VALUES ?',
      [
        ids.flatMap((id) =>
          [1, 2].map((step) => [`old-run-${id}`, step, 'diagnosis-agent', 1, 'OK', old, 1]),
        ),
      ],
    );
    await db.query(
      'INSERT INTO agent_reasoning_audit (run_id, step_index, role, content_source, created_at) VALUES ?',
      [
        ids.flatMap((id) =>
          [1, 2].map((step) => [`old-run-${id}`, step, 'diagnosis-agent', 'UNAVAILABLE', old]),
        ),
      ],
    );
    await db.query(
      'INSERT INTO tool_invocation (run_id, tool_call_id, tool_name, status, evidence_status, started_at, duration_ms) VALUES ?',
      [
        ids.flatMap((id) =>
          [1, 2].map((call) => [
            `old-run-${id}`,
            `call_${call}`,
            'query_logs',
            'READY',
            'EVIDENCE_FOUND',
            old,
            1,
          ]),
        ),
      ],
    );
    await db.query('INSERT INTO diagnosis_trace_event (run_id, phase, event_type, created_at) VALUES ?', [
      ids.flatMap((id) => [1, 2, 3, 4].map(() => [`old-run-${id}`, 'RUN', 'RUN_STARTED', old])),
    ]);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `purge-backlog bench failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
