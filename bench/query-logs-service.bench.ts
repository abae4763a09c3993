import 'reflect-metadata';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import type { RunTrace } from '@app/contracts';
import { draftJson, SUPPORTED } from '../test/support/diagnosis-scripts';
import type { RecordedRequest } from '../test/support/stub-llm/stub-llm-server';
import { reportBench, printColumns } from './support/bench-results';
import { BENCH_LOG_END, BENCH_LOG_QUERY, benchLogFile, median, referenceScanner } from './support/bench-logs';
import {
  boundPort,
  cpuMs,
  scrapeMetric,
  startNode,
  startStubLlm,
  stop,
  waitForHttp,
} from './support/processes';

/**
 * query_logs measured from outside (issue #41): the built service in its own process with LOG_BACKEND=jsonl
 * on one generated APPLICATION topic of BENCH_LOG_SIZES_MB (default 10,100,1024; the data of the
 * jsonl-log-source bench) and LOGS_JSONL_NOW at the end of its day, the stub LLM in another, scripted so
 * each diagnosis's agent calls query_logs once with the incident query over a 60-minute or a 24-hour
 * window, then answers. 1 and 4 diagnoses at once through POST /api/chat; per diagnosis the tool's
 * duration as the service recorded it (the trace API), the client's time for the whole run, the tool's
 * status and error code (TOOL_TIMEOUT and the like), the sizes of the raw result it projected and of the
 * projection the agent got, the match count the agent was given (the tool
 * message the stub received), the service's CPU time (all its threads) per diagnosis, and the
 * event loop's longest delay during the batch. `rg -c -i -F` on the same file, 1 and 4 at once, in the
 * same run as the reference. Per figure the slowest of the concurrent diagnoses, median of
 * BENCH_LOG_RUNS (default 3); one 60-minute diagnosis warms each service first (it builds the time
 * index). The service keeps its defaults (tool timeout, scan workers) unless the environment sets them.
 * BENCH_CPU_PROFILE_DIR=<dir> writes `--cpu-prof` profiles of the service there (one per thread: the scan
 * workers write their own). Printed, never asserted.
 */
const SIZES = (process.env.BENCH_LOG_SIZES_MB ?? '10,100,1024').split(',').map(Number);
const RUNS = Number(process.env.BENCH_LOG_RUNS ?? 3);
const WINDOWS_MIN = [60, 24 * 60];
const API_KEY = process.env.TEST_CHAT_API_KEY ?? 'superbiz-dev-key-change-me';
const chatQuery = (minutes: number) => `${BENCH_LOG_QUERY}: logs over ${minutes} minutes`;

/** One diagnosis as the client and the service's record saw it. */
interface DiagnosisSample {
  runS: number;
  outcome: string;
  toolS: number;
  toolStatus: string;
  /** The raw result the service projected for the agent, and the projection it gave (KB). */
  rawKb: number;
  agentKb: number;
  matches: number;
  stoppedBy: string;
}

/** The agent calls query_logs over the window its query names, then writes the draft citing it. */
function stubScript(): unknown {
  return {
    repeat: true,
    roles: {
      'intent-router': [{ content: 'DIAGNOSIS' }],
      'diagnosis-agent': [
        ...WINDOWS_MIN.map((minutes) => ({
          match: `over ${minutes} minutes`,
          turn: 0,
          content: '1. search the application logs for pool timeouts\n2. conclude',
          tool_calls: [
            {
              id: 'call_logs_1',
              name: 'query_logs',
              arguments: { topic: 'APPLICATION', query: BENCH_LOG_QUERY, lookback_minutes: minutes },
            },
          ],
        })),
        { turn: 1, content: draftJson() },
      ],
      'semantic-guard': [SUPPORTED],
    },
  };
}

async function main(): Promise<void> {
  const scriptFile = join(mkdtempSync(join(tmpdir(), 'bench-stub-')), 'script.json');
  writeFileSync(scriptFile, JSON.stringify(stubScript()));
  const admin = await createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    user: process.env.DB_USER ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
  });
  const dbName = `superbiz_bench_logs_${Date.now().toString(36)}`;
  await admin.query(`CREATE DATABASE \`${dbName}\``);
  const stub = await startStubLlm(scriptFile);
  const stubUrl = stub.url;
  const ref = referenceScanner();
  const figures: Record<string, number | string> = {
    measured: 'from outside: the built service in its own process, diagnoses through POST /api/chat',
    reference: ref.name,
    scan_workers: process.env.LOGS_SCAN_WORKERS ?? 'default',
    tool_timeout_ms: process.env.HARNESS_TOOL_CALL_TIMEOUT_MS ?? 'default (20000)',
  };
  const rows: Record<string, string | number>[] = [];
  try {
    await waitForHttp(`${stubUrl}/v1/models`);
    for (const sizeMb of SIZES) {
      const { directory, file } = await benchLogFile(sizeMb);
      const label = `${sizeMb}mb`;
      figures[`${label}_file_mb`] = statSync(file).size / 1024 / 1024;
      figures[`${label}_load_1m_before`] = loadavg()[0];
      const refS: Record<number, number> = {};
      for (const concurrent of [1, 4]) {
        const runs: number[] = [];
        for (let i = 0; i < RUNS; i += 1) {
          runs.push(
            Math.max(...(await Promise.all(Array.from({ length: concurrent }, () => ref.run(file))))),
          );
        }
        refS[concurrent] = median(runs);
        figures[`${label}_${ref.name}_x${concurrent}_s`] = refS[concurrent];
      }
      const service = startNode(
        'dist/apps/server/src/main.js',
        [],
        {
          PORT: '0',
          HOST: '127.0.0.1',
          LLM_BASE_URL: `${stubUrl}/v1`,
          DB_NAME: dbName,
          THROTTLE_LIMIT: '1000000',
          LOG_BACKEND: 'jsonl',
          LOGS_JSONL_DIR: directory,
          // Set, not inherited: the generated application-export.jsonl is the APPLICATION topic.
          LOGS_JSONL_TOPICS: 'APPLICATION=application*.jsonl',
          LOGS_JSONL_NOW: new Date(BENCH_LOG_END).toISOString(),
        },
        process.env.BENCH_CPU_PROFILE_DIR,
      );
      try {
        const baseUrl = `http://127.0.0.1:${await boundPort(service, 'the service')}`;
        await untilUp(service, `${baseUrl}/health`);
        await diagnose(baseUrl, 60); // warm-up: the service's first run, and the file's time index
        for (const minutes of WINDOWS_MIN) {
          for (const concurrent of [1, 4]) {
            const key = `${label}_${minutes}min_x${concurrent}`;
            const batches: { samples: DiagnosisSample[]; cpuMs: number; lagMaxMs: number }[] = [];
            for (let i = 0; i < RUNS; i += 1) {
              await fetch(`${stubUrl}/__stub/requests`, { method: 'DELETE' });
              await scrapeMetric(baseUrl, 'nodejs_eventloop_lag_max_seconds', API_KEY); // resets it
              const cpu0 = cpuMs(service.pid!);
              const runs = await Promise.all(
                Array.from({ length: concurrent }, () => diagnose(baseUrl, minutes)),
              );
              const cpu = cpuMs(service.pid!) - cpu0;
              const lagMaxMs =
                (await scrapeMetric(baseUrl, 'nodejs_eventloop_lag_max_seconds', API_KEY)) * 1000;
              // Every diagnosis of a batch runs the same query: the batch's results, in the order received.
              const given = await toolResultsGiven(stubUrl);
              const samples = await Promise.all(
                runs.map(async (run, n) => ({
                  ...run,
                  ...(await toolRecord(baseUrl, run.sessionId, run.runId)),
                  ...(given[n] ?? { matches: NaN, stoppedBy: 'NO_TOOL_RESULT' }),
                })),
              );
              batches.push({ samples, cpuMs: cpu / concurrent, lagMaxMs });
            }
            const all = batches.flatMap((batch) => batch.samples);
            const row: Record<string, string | number> = {
              size: label,
              window_min: minutes,
              concurrent,
              tool_s: median(batches.map((b) => Math.max(...b.samples.map((s) => s.toolS)))),
              run_s: median(batches.map((b) => Math.max(...b.samples.map((s) => s.runS)))),
              rg_s: refS[concurrent],
              svc_cpu_ms_per_diagnosis: median(batches.map((b) => b.cpuMs)),
              loop_lag_max_ms: median(batches.map((b) => b.lagMaxMs)),
              raw_kb: median(all.map((s) => s.rawKb)),
              agent_kb: median(all.map((s) => s.agentKb)),
              tool_statuses: JSON.stringify(count(all.map((s) => s.toolStatus))),
              outcomes: JSON.stringify(count(all.map((s) => s.outcome))),
              matches: JSON.stringify(count(all.map((s) => String(s.matches)))),
              stopped_by: JSON.stringify(count(all.map((s) => s.stoppedBy))),
            };
            row.tool_to_rg = Number(row.tool_s) / refS[concurrent];
            rows.push(row);
            for (const [name, value] of Object.entries(row)) {
              if (!['size', 'window_min', 'concurrent'].includes(name)) figures[`${key}_${name}`] = value;
            }
          }
        }
        figures[`${label}_load_1m_after`] = loadavg()[0];
      } finally {
        await stop(service);
      }
    }
    reportBench('query_logs_service', figures);
    printTable(rows, ref.name);
  } finally {
    await stop(stub.child);
    await admin.query(`DROP DATABASE IF EXISTS \`${dbName}\``).catch(() => undefined);
    await admin.end();
  }
}

/** Waits for the service to answer; a service that exits first (a bad setting) fails the bench at once. */
async function untilUp(service: ChildProcess, url: string): Promise<void> {
  const exited = new Promise<never>((_, reject) =>
    service.once('exit', (code) => reject(new Error(`the service exited with ${code} before answering`))),
  );
  exited.catch(() => undefined);
  await Promise.race([waitForHttp(url, 60_000), exited]);
}

/** One diagnosis through POST /api/chat, read to its end. */
async function diagnose(
  baseUrl: string,
  minutes: number,
): Promise<{ runS: number; outcome: string; sessionId: string; runId: string }> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
    body: JSON.stringify({ query: chatQuery(minutes) }),
  });
  const text = await response.text();
  const runS = (performance.now() - started) / 1000;
  if (response.status !== 200)
    throw new Error(`POST /api/chat answered ${response.status}: ${text.slice(0, 300)}`);
  const metadata = /event: metadata\ndata: (\{.*\})/.exec(text);
  if (!metadata) throw new Error(`the chat stream had no metadata event: ${text.slice(0, 300)}`);
  const { session_id: sessionId, run_id: runId } = JSON.parse(metadata[1]) as {
    session_id: string;
    run_id: string;
  };
  const done = /event: done\ndata: \{"outcome":"([A-Z]+)"/.exec(text)?.[1] ?? 'NO_DONE';
  const failure = /event: failure\ndata: \{"code":"([A-Z_]+)"/.exec(text)?.[1];
  return { runS, outcome: failure ? `${done}:${failure}` : done, sessionId, runId };
}

/** The run's query_logs invocation as the service recorded it: duration and status (with error code). */
async function toolRecord(
  baseUrl: string,
  sessionId: string,
  runId: string,
): Promise<{ toolS: number; toolStatus: string; rawKb: number; agentKb: number }> {
  // The journal's last writes may land just after the stream ends.
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const response = await fetch(`${baseUrl}/api/diagnosis/${sessionId}/trace?runId=${runId}`, {
      headers: { 'x-api-key': API_KEY },
    });
    if (!response.ok) throw new Error(`GET trace answered ${response.status}: the key needs trace_reader`);
    const trace = (await response.json()) as RunTrace;
    const call = trace.tool_invocations.find((invocation) => invocation.tool_name === 'query_logs');
    if (call && call.duration_ms !== null) {
      return {
        toolS: call.duration_ms / 1000,
        toolStatus: call.error_code ? `${call.status}:${call.error_code}` : call.status,
        rawKb: (call.raw_bytes ?? NaN) / 1024,
        agentKb: (call.agent_result_bytes ?? NaN) / 1024,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { toolS: NaN, toolStatus: 'NOT_RECORDED', rawKb: NaN, agentKb: NaN };
}

/** The match count and stop reason of each query_logs result the agent was given (from the stub's log). */
async function toolResultsGiven(stubUrl: string): Promise<{ matches: number; stoppedBy: string }[]> {
  const requests = (await (await fetch(`${stubUrl}/__stub/requests`)).json()) as RecordedRequest[];
  return requests
    .filter((request) => request.role === 'diagnosis-agent')
    .flatMap((request) => request.body.messages ?? [])
    .filter((message) => message.role === 'tool')
    .map((message) => {
      const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
      const matches = /"match_count":\s*(\d+)/.exec(content)?.[1];
      return {
        matches: matches === undefined ? NaN : Number(matches),
        stoppedBy: /"match_limit":\s*\{[^}]*"by":\s*"([^"]+)"/.exec(content)?.[1] ?? 'none',
      };
    });
}

function count(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function printTable(rows: Record<string, string | number>[], refName: string): void {
  const columns: [string, string][] = [
    ['size', 'size'],
    ['window_min', 'window min'],
    ['concurrent', 'at once'],
    ['tool_s', 'tool s'],
    ['run_s', 'run s'],
    ['rg_s', `${refName} s`],
    ['tool_to_rg', `tool/${refName}`],
    ['svc_cpu_ms_per_diagnosis', 'svc CPU ms/diag'],
    ['loop_lag_max_ms', 'loop lag max ms'],
    ['raw_kb', 'raw KB'],
    ['agent_kb', 'agent KB'],
    ['tool_statuses', 'tool status'],
    ['matches', 'matches'],
    ['stopped_by', 'stopped by'],
    ['outcomes', 'outcomes'],
  ];
  printColumns(columns, rows, 3);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
