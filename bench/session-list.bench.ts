import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { percentile, reportBench } from './support/bench-results';
import { boundPort, startNode, startStubLlm, stop, waitForHttp } from './support/processes';

/**
 * The session list against the number of sessions one key has: the built service in its own process,
 * `GET /api/diagnosis/sessions?limit=20` timed from here (first page, and a page 5,000 rows deep by
 * cursor) at 10 and at 10,000 sessions of the key, each session with two ended runs. The goal is a page
 * latency at 10,000 sessions within 2x of the one at 10. Then one session's run list at 5,000 runs: its
 * first page and a page 4,900 rows deep by cursor, within 2x of each other.
 */
const REQUESTS = Number(process.env.BENCH_SESSION_LIST_REQUESTS ?? 200);
const LARGE = Number(process.env.BENCH_SESSION_LIST_SESSIONS ?? 10_000);
const SMALL = 10;
const API_KEY = process.env.TEST_CHAT_API_KEY ?? 'superbiz-dev-key-change-me';
const SESSIONS = '/api/diagnosis/sessions';
const LONG_SESSION = 'bench-long-session';
const LONG_SESSION_RUNS = 5000;

async function main(): Promise<void> {
  const dbName = process.env.DB_NAME ?? `superbiz_bench_sessions_${Date.now().toString(36)}`;
  const admin = await createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    user: process.env.DB_USER ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
    timezone: 'Z',
  });
  await admin.query(`CREATE DATABASE IF NOT EXISTS \`${dbName}\``);
  // No diagnosis runs here; the stub LLM is there for the service's readiness check.
  const scriptFile = join(mkdtempSync(join(tmpdir(), 'bench-stub-')), 'script.json');
  writeFileSync(scriptFile, JSON.stringify({ roles: {} }));
  const stub = await startStubLlm(scriptFile);
  const service = startNode('dist/apps/server/src/main.js', [], {
    PORT: '0',
    HOST: '127.0.0.1',
    LLM_BASE_URL: stub.baseUrl,
    DB_NAME: dbName,
    THROTTLE_LIMIT: '1000000',
  });
  try {
    const baseUrl = `http://127.0.0.1:${await boundPort(service, 'the service')}`;
    await waitForHttp(`${baseUrl}/health`);
    const owner = createHash('sha256').update(API_KEY).digest('hex');
    await insertSessions(admin, dbName, owner, 0, SMALL);
    const small = await timePages(baseUrl, SESSIONS, false);
    await insertSessions(admin, dbName, owner, SMALL, LARGE);
    const large = await timePages(baseUrl, SESSIONS, false);
    const deep = await timePages(baseUrl, SESSIONS, true);
    // One session with LONG_SESSION_RUNS runs: its run list, first page and a page ~5,000 rows deep.
    await insertLongSession(admin, dbName, owner);
    const runsPath = `/api/diagnosis/${LONG_SESSION}/trace`;
    const runsFirst = await timePages(baseUrl, runsPath, false);
    const runsDeep = await timePages(baseUrl, runsPath, true);
    const ratio = large / small;
    reportBench('session_list', {
      setup: 'built service in its own process; timed over HTTP from the bench process',
      requests_per_figure: REQUESTS,
      page_size: 20,
      [`first_page_p50_ms_at_${SMALL}_sessions`]: small,
      [`first_page_p50_ms_at_${LARGE}_sessions`]: large,
      [`page_5000_deep_p50_ms_at_${LARGE}_sessions`]: deep,
      [`ratio_${LARGE}_vs_${SMALL}`]: ratio,
      [`ratio_deep_vs_${SMALL}`]: deep / small,
      [`run_list_first_page_p50_ms_at_${LONG_SESSION_RUNS}_runs`]: runsFirst,
      run_list_page_4900_deep_p50_ms: runsDeep,
      run_list_ratio_deep_vs_first: runsDeep / runsFirst,
    });
    process.stdout.write(
      `\n  goal (issue 26)                         measured  target  met\n` +
        `  page at ${LARGE} sessions / at ${SMALL}        ${ratio.toFixed(2).padStart(8)}  <= 2    ${ratio <= 2 ? 'yes' : 'no'}\n` +
        `  page 5,000 deep / first page at ${SMALL}    ${(deep / small).toFixed(2).padStart(8)}  <= 2    ${deep / small <= 2 ? 'yes' : 'no'}\n` +
        `  run list 4,900 deep / first (issue 41)   ${(runsDeep / runsFirst).toFixed(2).padStart(8)}  <= 2    ${runsDeep / runsFirst <= 2 ? 'yes' : 'no'}\n`,
    );
  } finally {
    await stop(service);
    await stop(stub.child);
    await admin.query(`DROP DATABASE IF EXISTS \`${dbName}\``).catch(() => undefined);
    await admin.end();
  }
}

/** Sessions `from`..`to` of the key, a second apart, each with two ended runs, in batches of 1,000. */
async function insertSessions(
  admin: Awaited<ReturnType<typeof createConnection>>,
  dbName: string,
  owner: string,
  from: number,
  to: number,
): Promise<void> {
  const base = Date.parse('2026-01-01T00:00:00Z');
  for (let start = from; start < to; start += 1000) {
    const ids = Array.from({ length: Math.min(1000, to - start) }, (_, index) => start + index);
    const at = (i: number) => new Date(base + i * 1000);
    await admin.query(
      `INSERT INTO \`${dbName}\`.chat_session (session_id, owner_key_digest, created_at, updated_at, run_count, last_run_at, last_outcome, last_query) VALUES ?`,
      [ids.map((i) => [`bench-session-${i}`, owner, at(i), at(i), 2, at(i), 'SUCCESS', `question ${i}`])],
    );
    await admin.query(
      `INSERT INTO \`${dbName}\`.diagnosis_run (run_id, session_id, query, status, created_at, ended_at) VALUES ?`,
      [
        ids.flatMap((i) => [
          [`bench-run-${i}-a`, `bench-session-${i}`, `question ${i}`, 'SUCCESS', at(i), at(i)],
          [`bench-run-${i}-b`, `bench-session-${i}`, `question ${i}`, 'SUCCESS', at(i), at(i)],
        ]),
      ],
    );
  }
  await admin.query(`ANALYZE TABLE \`${dbName}\`.chat_session, \`${dbName}\`.diagnosis_run`);
}

/** One session of the key with LONG_SESSION_RUNS ended runs, a second apart. */
async function insertLongSession(
  admin: Awaited<ReturnType<typeof createConnection>>,
  dbName: string,
  owner: string,
): Promise<void> {
  const base = Date.parse('2025-01-01T00:00:00Z');
  await admin.query(
    `INSERT INTO \`${dbName}\`.chat_session (session_id, owner_key_digest, created_at, updated_at) VALUES (?, ?, ?, ?)`,
    [LONG_SESSION, owner, new Date(base), new Date(base)],
  );
  const runs = Array.from({ length: LONG_SESSION_RUNS }, (_, i) => {
    const at = new Date(base + i * 1000);
    return [`bench-long-run-${i}`, LONG_SESSION, `question ${i}`, 'SUCCESS', at, at];
  });
  await admin.query(
    `INSERT INTO \`${dbName}\`.diagnosis_run (run_id, session_id, query, status, created_at, ended_at) VALUES ?`,
    [runs],
  );
  await admin.query(`ANALYZE TABLE \`${dbName}\`.diagnosis_run`);
}

/**
 * p50 of REQUESTS page reads of the list at `path` (after 20 warm-up reads): the first page, or the
 * page reached by walking 49 pages of 100 (4,900 rows deep) by cursor.
 */
async function timePages(baseUrl: string, path: string, deep: boolean): Promise<number> {
  const get = async (limit: number, cursor: string | null) => {
    const response = await fetch(`${baseUrl}${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: { 'x-api-key': API_KEY },
    });
    if (response.status !== 200) throw new Error(`${path} answered HTTP ${response.status}`);
    const page = (await response.json()) as {
      sessions?: unknown[];
      runs?: unknown[];
      next_cursor: string | null;
    };
    return { rows: (page.sessions ?? page.runs ?? []).length, next: page.next_cursor };
  };
  let cursor: string | null = null;
  if (deep) {
    for (let page = 0; page < 49 && (page === 0 || cursor); page += 1) cursor = (await get(100, cursor)).next;
  }
  for (let i = 0; i < 20; i += 1) await get(20, cursor);
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i += 1) {
    const t0 = performance.now();
    const page = await get(20, cursor);
    times.push(performance.now() - t0);
    if (page.rows === 0) throw new Error(`${path} answered an empty page`);
  }
  return percentile(times, 50);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
