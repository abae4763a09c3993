import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { agentTurns, draftJson, SUPPORTED } from '../test/support/diagnosis-scripts';
import type { BurstSample } from './support/burst-generator';
import { percentile, reportBench, printColumns } from './support/bench-results';
import {
  boundPort,
  cpuMs,
  machineCpuMs,
  startNode,
  startStubLlm,
  stop,
  waitForHttp,
} from './support/processes';

/**
 * A thousand users at once: the built service in its own process (with the bench heap probe), the stub
 * LLM in another (MODEL_LATENCY_MS per call, four calls per diagnosis), and a burst generator in a third
 * that opens STREAMS chat streams at the same moment and reads each to its end. Per scenario: time to
 * the first event (p50/p99/max) and to metadata, heap (after a forced GC) and RSS per open stream,
 * taken when every stream has had its first event, connection errors, and outcomes as the client heard
 * them and by terminal state and fallback reason in MySQL. Scenarios: 300 streams with the default admission limits, then 300
 * and 1,000 with the limits an operator raises for such a burst (docs/operations-capacity.md), then the
 * same sizes arriving while 200 diagnoses already run.
 * Before them, the same sizes against a bare node:http server that answers with the first event at once
 * (the reference: what the machine and the generator cost by themselves), and against a NestJS
 * application with one such route (what the framework costs by itself).
 * BENCH_BURST_SIZES=300,1000 picks the raised-limit sizes. BENCH_BURST_CPU_PROFILE_DIR=<dir> writes the
 * service's CPU profile of each burst, from its start until every stream has had its first event
 * (summarise it with `node dist/bench/support/profile-summary.js <file>`); the profiler costs CPU, so
 * the figures of a profiled run are not the service's.
 */
const MODEL_LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? 200);
const SIZES = (process.env.BENCH_BURST_SIZES ?? '300,1000').split(',').map(Number);
const QUERY = 'order-123 payment times out, find out why';
const API_KEY = process.env.TEST_CHAT_API_KEY ?? 'superbiz-dev-key-change-me';
const PROFILE_DIR = process.env.BENCH_BURST_CPU_PROFILE_DIR;
if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
/** Extra node flags for the service process only (e.g. `--trace-gc`), space-separated. */
const SERVICE_NODE_FLAGS = (process.env.BENCH_SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);

/** The settings an operator raises for a burst of 1,000 diagnoses on one replica. */
const RAISED = {
  CHAT_MAX_IN_FLIGHT: '200',
  CHAT_MAX_QUEUE: '1000',
  CHAT_MAX_QUEUED_PER_KEY: '1000',
  DB_POOL_SIZE: '30',
  DB_ADMISSION_POOL_SIZE: '16',
  // The first event no longer waits for the run's row, so its bound only limits how long a slot waits.
  DB_WRITE_GRACE_MS: '30000',
};

interface Scenario {
  name: string;
  streams: number;
  /**
   * Streams started before the measured burst, whose runs are executing (model and tool calls) when it
   * arrives: a burst that meets a busy service, not an idle one.
   */
  running?: number;
}

/** How long the running streams' diagnoses work before the burst comes (they take ~1 s each). */
const RUNNING_HEAD_START_MS = 300;

async function main(): Promise<void> {
  const [plan, final] = agentTurns(draftJson());
  const scriptFile = join(mkdtempSync(join(tmpdir(), 'bench-stub-')), 'script.json');
  writeFileSync(
    scriptFile,
    JSON.stringify({
      repeat: true,
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS', delay_ms: MODEL_LATENCY_MS }],
        'diagnosis-agent': [
          { ...plan, turn: 0, delay_ms: MODEL_LATENCY_MS },
          { ...final, turn: 1, delay_ms: MODEL_LATENCY_MS },
        ],
        'semantic-guard': [{ ...SUPPORTED, delay_ms: MODEL_LATENCY_MS }],
      },
    }),
  );
  const admin = await createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    user: process.env.DB_USER ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
  });
  const stub = await startStubLlm(scriptFile);
  const rows: Record<string, string | number>[] = [];
  try {
    rows.push(...(await runReference('bare node:http server', 'bare-sse-server', [300, ...SIZES])));
    rows.push(...(await runReference('NestJS + Express only', 'nest-sse-server', SIZES)));
    rows.push(
      ...(await runScenarios(admin, stub.baseUrl, {}, [{ name: 'defaults (32 + 64)', streams: 300 }])),
    );
    const raised = await runScenarios(admin, stub.baseUrl, RAISED, [
      ...SIZES.map((streams) => ({ name: 'raised (200 + 1000)', streams })),
      ...SIZES.map((streams) => ({
        name: 'raised, 200 runs already running',
        streams,
        running: 200,
      })),
    ]);
    rows.push(...raised);
  } finally {
    await stop(stub.child);
    await admin.end();
  }
  printTable(rows);
}

/**
 * The same bursts against a reference server that writes the first event at once (its own process,
 * bench/support/<script>.ts), in the same window as the service's: bare-sse-server is the floor this
 * machine, its load and the generator set for the time to the first event; nest-sse-server adds NestJS
 * and Express alone.
 */
async function runReference(
  name: string,
  script: string,
  sizes: number[],
): Promise<Record<string, string | number>[]> {
  const server = startNode(`${__dirname}/support/${script}.js`, ['0'], {});
  const rows: Record<string, string | number>[] = [];
  try {
    const baseUrl = `http://127.0.0.1:${await boundPort(server, 'the reference server')}`;
    await burst(baseUrl, 10);
    for (const streams of sizes) {
      const load = loadavg()[0];
      const serverCpu0 = cpuMs(server.pid!);
      let serverCpuToFirst = NaN;
      let generatorCpuToFirst = NaN;
      const samples = await burst(baseUrl, streams, (generatorCpuMs) => {
        serverCpuToFirst = cpuMs(server.pid!) - serverCpu0;
        generatorCpuToFirst = generatorCpuMs;
      });
      const first = samples.map((s) => s.firstEventMs).filter((ms): ms is number => ms !== null);
      const row: Record<string, string | number> = {
        scenario: `${streams} streams, reference: ${name}`,
        streams,
        streamed: first.length,
        first_event_p50_ms: percentile(first, 50) ?? NaN,
        first_event_p99_ms: percentile(first, 99) ?? NaN,
        first_event_max_ms: Math.max(...first),
        first_event_over_1s: first.filter((ms) => ms > 1000).length,
        service_cpu_ms_until_all_first_events: serverCpuToFirst,
        generator_cpu_ms_until_all_first_events: generatorCpuToFirst,
        connection_errors: JSON.stringify(
          count(samples.filter((s) => s.error !== null).map((s) => s.error!)),
        ),
        client_outcomes: JSON.stringify(count(samples.map((s) => s.outcome))),
        machine_load_1m_before: load,
      };
      reportBench(`chat_burst_${streams}_reference_${script}`, row);
      rows.push(row);
    }
  } finally {
    await stop(server);
  }
  return rows;
}

/** One service with `env`; each scenario a burst against it, one after the other. */
async function runScenarios(
  admin: Awaited<ReturnType<typeof createConnection>>,
  llmBaseUrl: string,
  env: Record<string, string>,
  scenarios: Scenario[],
): Promise<Record<string, string | number>[]> {
  const dbName = `superbiz_bench_burst_${Date.now().toString(36)}`;
  await admin.query(`CREATE DATABASE \`${dbName}\``);
  const service = spawn(
    process.execPath,
    [
      ...SERVICE_NODE_FLAGS,
      '--expose-gc',
      '-r',
      resolve(__dirname, 'support/heap-probe.js'),
      'dist/apps/server/src/main.js',
    ],
    {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LLM_BASE_URL: llmBaseUrl,
        DB_NAME: dbName,
        THROTTLE_LIMIT: '1000000',
        HARNESS_RUN_TIMEOUT_MS: '120000',
        ...env,
      },
      stdio: ['ignore', SERVICE_NODE_FLAGS.length > 0 ? 'inherit' : 'pipe', 'inherit', 'ipc'],
    },
  );
  const serviceErrors = keepErrorLines(service);
  const results: Record<string, string | number>[] = [];
  try {
    const baseUrl = `http://127.0.0.1:${await boundPort(service, 'the service')}`;
    await waitForHttp(`${baseUrl}/health`, 60_000);
    await burst(baseUrl, 10); // warm-up
    for (const scenario of scenarios) {
      const before = await heapOf(service);
      const load = loadavg()[0];
      const cpu0 = machineCpuMs();
      let atPeak: Promise<{ heapUsedMb: number; rssMb: number }> | null = null;
      const profileFile = PROFILE_DIR
        ? join(
            resolve(PROFILE_DIR),
            `burst-${scenario.streams}-${scenario.name.split(/[ ,]/u)[0]}${scenario.running ? `-while-${scenario.running}-run` : ''}-${Date.now()}.cpuprofile`,
          )
        : null;
      let profiled: Promise<unknown> = Promise.resolve();
      process.stderr.write(`burst of ${scenario.streams} streams, ${scenario.name}\n`);
      let running: Promise<BurstSample[]> = Promise.resolve([]);
      if (scenario.running) {
        let started!: () => void;
        const allStarted = new Promise<void>((resolveStarted) => (started = resolveStarted));
        running = burst(baseUrl, scenario.running, () => started());
        await allStarted;
        await new Promise((resolveWait) => setTimeout(resolveWait, RUNNING_HEAD_START_MS));
      }
      // Like the CPU figures, the profile covers the measured burst only, not the running streams' start.
      if (profileFile) await ask(service, { profile: 'start' }, 'profiling');
      const serviceCpu0 = cpuMs(service.pid!);
      let serviceCpuToFirst = NaN;
      let generatorCpuToFirst = NaN;
      const samples = await burst(baseUrl, scenario.streams, (generatorCpuMs) => {
        serviceCpuToFirst = cpuMs(service.pid!) - serviceCpu0;
        generatorCpuToFirst = generatorCpuMs;
        if (profileFile) profiled = ask(service, { profile: 'stop', file: profileFile }, 'profiled');
        atPeak = profiled.then(() => heapOf(service));
      });
      if (profileFile) process.stderr.write(`service CPU profile: ${String(await profiled)}\n`);
      const cpu1 = machineCpuMs();
      const peak = await (atPeak ?? heapOf(service));
      const runningSamples = await running;
      const outcomes = await outcomesOf(admin, dbName, [...samples, ...runningSamples], serviceErrors);
      const first = samples.map((s) => s.firstEventMs).filter((ms): ms is number => ms !== null);
      const metadata = samples.map((s) => s.metadataMs).filter((ms): ms is number => ms !== null);
      const streamed = samples.filter((s) => s.firstEvent !== null);
      const errors = count(samples.filter((s) => s.error !== null).map((s) => s.error!));
      const http = count(samples.filter((s) => s.status !== 200).map((s) => `HTTP_${s.status}`));
      const row: Record<string, string | number> = {
        scenario: `${scenario.streams} streams, ${scenario.name}`,
        streams: scenario.streams,
        running_before: scenario.running ?? 0,
        streamed: streamed.length,
        first_event_p50_ms: percentile(first, 50) ?? NaN,
        first_event_p99_ms: percentile(first, 99) ?? NaN,
        first_event_max_ms: Math.max(...first),
        first_event_over_1s: first.filter((ms) => ms > 1000).length,
        // The kernel completes a TCP handshake before the service accepts: a fast connect and a late first
        // event mean the connection waited in the accept queue.
        connected_max_ms: Math.max(...samples.map((s) => s.connectedMs ?? NaN)),
        // The service's own CPU time until every stream had its first event: what the burst costs it,
        // whatever share of a loaded machine it got.
        service_cpu_ms_until_all_first_events: serviceCpuToFirst,
        // The burst generator's own CPU time over the same span: it shares the machine's cores with the service.
        generator_cpu_ms_until_all_first_events: generatorCpuToFirst,
        first_events: JSON.stringify(count(streamed.map((s) => s.firstEvent!))),
        metadata_p50_ms: percentile(metadata, 50) ?? NaN,
        metadata_p99_ms: percentile(metadata, 99) ?? NaN,
        queued_streams: samples.filter((s) => s.queuedEvents > 0).length,
        heap_kb_per_open_stream: ((peak.heapUsedMb - before.heapUsedMb) * 1024) / scenario.streams,
        rss_mb_before: before.rssMb,
        rss_mb_all_streams_open: peak.rssMb,
        connection_errors: JSON.stringify(errors),
        refused: JSON.stringify(http),
        client_outcomes: JSON.stringify(count([...samples, ...runningSamples].map((s) => s.outcome))),
        outcomes: JSON.stringify(outcomes),
        machine_load_1m_before: load,
        machine_cpu_busy_percent: (100 * (cpu1.busy - cpu0.busy)) / Math.max(1, cpu1.total - cpu0.total),
      };
      reportBench(`chat_burst_${scenario.streams}_${scenario.name.split(' ')[0]}`, row);
      results.push(row);
    }
  } finally {
    await stopService(service);
    await admin.query(`DROP DATABASE IF EXISTS \`${dbName}\``).catch(() => undefined);
  }
  return results;
}

/**
 * Runs the burst generator in its own process; `onAllFirst` when every stream has had its first event,
 * with the CPU time the generator has used until then.
 */
function burst(
  baseUrl: string,
  streams: number,
  onAllFirst?: (generatorCpuMs: number) => void,
): Promise<BurstSample[]> {
  return new Promise((resolveSamples, reject) => {
    const child = spawn(
      process.execPath,
      [
        `${__dirname}/support/burst-generator.js`,
        JSON.stringify({ baseUrl, apiKey: API_KEY, query: QUERY, streams }),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('all-first-events\n') && onAllFirst) {
        const call = onAllFirst;
        onAllFirst = undefined;
        call(cpuMs(child.pid!));
      }
    });
    child.once('exit', (code) => {
      if (code === 0) resolveSamples(JSON.parse(stdout) as BurstSample[]);
      else reject(new Error(`burst generator exited with ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

/** Terminal state and fallback reason / error code of each run, from the journal. */
async function outcomesOf(
  admin: Awaited<ReturnType<typeof createConnection>>,
  dbName: string,
  samples: BurstSample[],
  serviceErrors: readonly string[],
): Promise<Record<string, number>> {
  const runIds = samples.map((s) => s.runId).filter(Boolean);
  if (runIds.length === 0) return {};
  const [rows] = await admin.query<RowDataPacket[]>(
    `SELECT status, COALESCE(fallback_reason, error_code, '') AS reason, COUNT(*) AS n
     FROM \`${dbName}\`.diagnosis_run WHERE run_id IN (?) GROUP BY status, reason`,
    [runIds],
  );
  const outcomes: Record<string, number> = {};
  for (const row of rows) outcomes[`${row.status}${row.reason ? `:${row.reason}` : ''}`] = Number(row.n);
  const unrecorded = runIds.length - rows.reduce((sum, row) => sum + Number(row.n), 0);
  if (unrecorded > 0) outcomes.NO_ROW = unrecorded;
  if (outcomes['FAILED:INTERNAL_ERROR']) await printTimelines(admin, dbName, runIds, serviceErrors);
  return outcomes;
}

/**
 * The service's error and fatal log lines (pino levels 50 and 60), the last 200: the bench reads its
 * stdout instead of discarding it, which costs the service nothing more than writing to /dev/null did.
 */
function keepErrorLines(service: ChildProcess): string[] {
  const kept: string[] = [];
  if (!service.stdout) return kept;
  createInterface({ input: service.stdout }).on('line', (line) => {
    if (!/"level":(?:50|60)\b/u.test(line)) return;
    kept.push(line);
    if (kept.length > 200) kept.shift();
  });
  return kept;
}

/**
 * The timelines of up to three runs that ended INTERNAL_ERROR (a defect, rare under a burst), and the
 * service's error lines that name them, before the bench's database is dropped.
 */
async function printTimelines(
  admin: Awaited<ReturnType<typeof createConnection>>,
  dbName: string,
  runIds: string[],
  serviceErrors: readonly string[],
): Promise<void> {
  const [failed] = await admin.query<RowDataPacket[]>(
    `SELECT run_id FROM \`${dbName}\`.diagnosis_run
     WHERE run_id IN (?) AND status = 'FAILED' AND error_code = 'INTERNAL_ERROR' LIMIT 3`,
    [runIds],
  );
  for (const { run_id: runId } of failed) {
    const [events] = await admin.query<RowDataPacket[]>(
      `SELECT phase, event_type, details, created_at FROM \`${dbName}\`.diagnosis_trace_event
       WHERE run_id = ? ORDER BY id`,
      [runId],
    );
    process.stderr.write(`run ${String(runId)} ended INTERNAL_ERROR; its timeline:\n`);
    for (const event of events) {
      process.stderr.write(
        `  ${new Date(event.created_at as string).toISOString()} ${String(event.phase)} ${String(event.event_type)} ${JSON.stringify(event.details)}\n`,
      );
    }
    for (const line of serviceErrors.filter((text) => text.includes(String(runId))))
      process.stderr.write(`  service log: ${line}\n`);
  }
}

function count(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** Heap-used after a forced full GC and RSS of the service (MB), through the heap probe. */
async function heapOf(service: ChildProcess): Promise<{ heapUsedMb: number; rssMb: number }> {
  const heap = (await ask(service, 'heap', 'heap')) as NodeJS.MemoryUsage;
  return { heapUsedMb: heap.heapUsed / 2 ** 20, rssMb: heap.rss / 2 ** 20 };
}

/** Sends the heap probe `message` and resolves with the `answer` field of its reply. */
function ask(service: ChildProcess, message: unknown, answer: string): Promise<unknown> {
  return new Promise((resolveAnswer, reject) => {
    const timer = setTimeout(() => {
      service.off('message', listener);
      reject(new Error(`the service heap probe did not answer ${answer}`));
    }, 60_000);
    const listener = (reply: Record<string, unknown>) => {
      if (!(answer in reply)) return;
      clearTimeout(timer);
      service.off('message', listener);
      resolveAnswer(reply[answer]);
    };
    service.on('message', listener);
    service.send(message as string);
  });
}

async function stopService(service: ChildProcess): Promise<void> {
  if (service.exitCode !== null || service.signalCode !== null) return;
  const exited = new Promise((resolveExit) => service.once('exit', resolveExit));
  service.kill('SIGTERM');
  await exited;
}

function printTable(rows: Record<string, string | number>[]): void {
  const columns: [string, string][] = [
    ['scenario', 'scenario'],
    ['first_event_p50_ms', 'first p50 ms'],
    ['first_event_p99_ms', 'first p99 ms'],
    ['first_event_max_ms', 'first max ms'],
    ['first_event_over_1s', '>1 s'],
    ['service_cpu_ms_until_all_first_events', 'svc CPU ms to all first'],
    ['generator_cpu_ms_until_all_first_events', 'generator CPU ms'],
    ['heap_kb_per_open_stream', 'heap KB/stream'],
    ['rss_mb_all_streams_open', 'RSS MB, all open'],
    ['connection_errors', 'conn errors'],
    ['refused', 'refused'],
    ['client_outcomes', 'client outcomes'],
    ['outcomes', 'journal outcomes'],
    ['machine_load_1m_before', 'load 1m'],
  ];
  printColumns(columns, rows, 1);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
