import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { agentTurns, draftJson, SUPPORTED } from '../test/support/diagnosis-scripts';
import { BareLoadConfig, BareLoadResult, bareDiagnosis } from './support/bare-agent';
import { mean, percentile, reportBench } from './support/bench-results';
import {
  boundPort,
  cpuMs,
  generateLoad,
  peakRssMb,
  scrapeMetric,
  startNode,
  startStubLlm,
  stop,
  waitForHttp,
} from './support/processes';

/**
 * Load on the service as users deploy it: the built service in its own process, the stub LLM in
 * another (MODEL_LATENCY_MS per call: routing, two agent turns with a query_logs call, SemanticGuard),
 * and the load generator in a third, keeping STREAMS diagnosis streams open for DURATION_S seconds.
 * CPU per diagnosis is the service process's own CPU time (/proc) over the load window; event-loop lag
 * is measured inside the service (its /metrics). Then one diagnosis at a time through the service vs a
 * bare createReactAgent (in this process) making the same four model calls against the same stub, and
 * that bare agent under the same load in its own process: the floor the libraries alone set.
 * BENCH_CPU_PROFILE_DIR=<dir> writes a `--cpu-prof` profile of the service process there.
 */
const STREAMS = Number(process.env.BENCH_CHAT_STREAMS ?? 100);
const DURATION_S = Number(process.env.BENCH_CHAT_DURATION_S ?? 30);
const MODEL_LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? 200);
const MODEL_CALLS = 4;
const SEQUENTIAL_RUNS = 10;
const WARM_UP = 20;
const QUERY = 'order-123 payment times out, find out why';
const API_KEY = process.env.TEST_CHAT_API_KEY ?? 'superbiz-dev-key-change-me';

async function main(): Promise<void> {
  const [plan, final] = agentTurns(draftJson());
  const scriptFile = join(mkdtempSync(join(tmpdir(), 'bench-stub-')), 'script.json');
  writeFileSync(
    scriptFile,
    JSON.stringify({
      // The bare agent sends no reasoning back, so both run under the strict OpenAI profile.
      profile: 'openai',
      repeat: true,
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS', delay_ms: MODEL_LATENCY_MS }],
        'diagnosis-agent': [
          {
            ...plan,
            turn: 0,
            delay_ms: MODEL_LATENCY_MS,
            usage: { prompt_tokens: 1200, completion_tokens: 90 },
          },
          {
            ...final,
            turn: 1,
            delay_ms: MODEL_LATENCY_MS,
            usage: { prompt_tokens: 2600, completion_tokens: 420 },
          },
        ],
        'semantic-guard': [{ ...SUPPORTED, delay_ms: MODEL_LATENCY_MS }],
      },
    }),
  );
  const dbName = process.env.DB_NAME ?? `superbiz_bench_${Date.now().toString(36)}`;
  const admin = await createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    user: process.env.DB_USER ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
  });
  await admin.query(`CREATE DATABASE IF NOT EXISTS \`${dbName}\``);
  const stub = await startStubLlm(scriptFile);
  const stubUrl = stub.baseUrl;
  const service = startNode(
    'dist/apps/server/src/main.js',
    [],
    {
      PORT: '0',
      HOST: '127.0.0.1',
      LLM_BASE_URL: stubUrl,
      DB_NAME: dbName,
      DB_POOL_SIZE: process.env.DB_POOL_SIZE ?? '20',
      CHAT_MAX_IN_FLIGHT: String(STREAMS),
      CHAT_MAX_QUEUE: '0',
      THROTTLE_LIMIT: '1000000',
      HARNESS_RUN_TIMEOUT_MS: '120000',
    },
    process.env.BENCH_CPU_PROFILE_DIR,
  );
  try {
    const baseUrl = `http://127.0.0.1:${await boundPort(service, 'the service')}`;
    await waitForHttp(`${baseUrl}/health`);
    await generateLoad({ baseUrl, apiKey: API_KEY, query: QUERY, streams: 10, count: WARM_UP });

    await scrapeMetric(baseUrl, 'nodejs_eventloop_lag_p99_seconds', API_KEY); // resets the lag histogram
    const cpuBefore = cpuMs(service.pid!);
    const started = performance.now();
    const samples = await generateLoad({
      baseUrl,
      apiKey: API_KEY,
      query: QUERY,
      streams: STREAMS,
      durationS: DURATION_S,
    });
    const elapsedS = (performance.now() - started) / 1000;
    const serviceCpuMs = cpuMs(service.pid!) - cpuBefore;
    const lagP99Ms = (await scrapeMetric(baseUrl, 'nodejs_eventloop_lag_p99_seconds', API_KEY)) * 1000;

    const sequential = await generateLoad({
      baseUrl,
      apiKey: API_KEY,
      query: QUERY,
      streams: 1,
      count: SEQUENTIAL_RUNS,
    });
    const bareMs = await bareAgentRuns(stubUrl);
    const bare = await bareAgentLoad(stubUrl);
    const barePerSecond = bare.diagnoses / bare.elapsedS;
    const bareCpuPerDiagnosis = bare.cpuMs / Math.max(1, bare.diagnoses);

    const [tokens] = await admin.query<RowDataPacket[]>(
      `SELECT AVG(input_tokens) AS input_tokens, AVG(output_tokens) AS output_tokens, AVG(model_calls) AS model_calls FROM \`${dbName}\`.diagnosis_run WHERE run_id IN (?)`,
      [samples.slice(0, 500).map((sample) => sample.runId || '-')],
    );
    const completed = samples.filter((sample) => sample.outcome === 'SUCCESS').length;
    const metadata = samples.map((sample) => sample.metadataMs).filter((ms) => !Number.isNaN(ms));
    const totals = samples.map((sample) => sample.totalMs).filter((ms) => !Number.isNaN(ms));
    const idealPerSecond = STREAMS / ((MODEL_CALLS * MODEL_LATENCY_MS) / 1000);
    const perSecond = completed / elapsedS;
    const sequentialMs = mean(sequential.map((sample) => sample.totalMs));
    const fullVsBare = sequentialMs / mean(bareMs);
    const cpuPerDiagnosis = serviceCpuMs / Math.max(1, samples.length);
    reportBench('chat_load', {
      setup: 'service, stub LLM and load generator each in their own process',
      streams: STREAMS,
      duration_s: DURATION_S,
      model_latency_ms: MODEL_LATENCY_MS,
      diagnoses: samples.length,
      completed_success: completed,
      not_success: samples.length - completed,
      diagnoses_per_second: perSecond,
      llm_bound_ideal_per_second: idealPerSecond,
      percent_of_ideal: (100 * perSecond) / idealPerSecond,
      service_cpu_ms_per_diagnosis: cpuPerDiagnosis,
      metadata_p50_ms: percentile(metadata, 50),
      metadata_p99_ms: percentile(metadata, 99),
      total_p50_ms: percentile(totals, 50),
      total_p99_ms: percentile(totals, 99),
      service_event_loop_lag_p99_ms: lagP99Ms,
      service_rss_peak_mb: peakRssMb(service.pid!),
      bare_agent_same_load_diagnoses_per_second: barePerSecond,
      bare_agent_same_load_percent_of_ideal: (100 * barePerSecond) / idealPerSecond,
      bare_agent_same_load_cpu_ms_per_diagnosis: bareCpuPerDiagnosis,
      sequential_full_service_mean_ms: sequentialMs,
      sequential_bare_agent_mean_ms: mean(bareMs),
      full_vs_bare_ratio: fullVsBare,
      service_vs_bare_cpu_ratio: cpuPerDiagnosis / bareCpuPerDiagnosis,
      model_calls_per_diagnosis: Number(tokens[0].model_calls),
      input_tokens_per_diagnosis: Number(tokens[0].input_tokens),
      output_tokens_per_diagnosis: Number(tokens[0].output_tokens),
    });
    printGoals([
      [
        'service CPU per diagnosis (ms)',
        cpuPerDiagnosis,
        '<= 15',
        cpuPerDiagnosis <= 15,
        bareCpuPerDiagnosis,
      ],
      [
        'service CPU / bare agent CPU (issue 26)',
        cpuPerDiagnosis / bareCpuPerDiagnosis,
        '<= 1.3',
        cpuPerDiagnosis <= 1.3 * bareCpuPerDiagnosis,
        null,
      ],
      [
        'throughput, % of LLM-bound ideal',
        (100 * perSecond) / idealPerSecond,
        '>= 60',
        perSecond >= 0.6 * idealPerSecond,
        (100 * barePerSecond) / idealPerSecond,
      ],
      ['time to metadata p99 (ms)', percentile(metadata, 99), '< 100', percentile(metadata, 99) < 100, null],
      ['service event-loop lag p99 (ms)', lagP99Ms, '< 20', lagP99Ms < 20, null],
      ['full service / bare agent, one at a time', fullVsBare, '<= 1.02', fullVsBare <= 1.02, null],
    ]);
    if (completed !== samples.length) process.exitCode = 1;
  } finally {
    await stop(service);
    await stop(stub.child);
    await admin.query(`DROP DATABASE IF EXISTS \`${dbName}\``).catch(() => undefined);
    await admin.end();
  }
}

/** One bare diagnosis at a time, in this process, for the one-at-a-time ratio. */
async function bareAgentRuns(stubUrl: string): Promise<number[]> {
  const diagnose = bareDiagnosis(stubUrl, QUERY);
  const runs: number[] = [];
  for (let i = 0; i < SEQUENTIAL_RUNS; i += 1) {
    const t0 = performance.now();
    await diagnose();
    runs.push(performance.now() - t0);
  }
  return runs;
}

/** The bare agent under the same load, in its own process: the CPU and throughput floor of the libraries. */
async function bareAgentLoad(stubUrl: string): Promise<BareLoadResult> {
  const config: BareLoadConfig = {
    stubUrl,
    query: QUERY,
    streams: STREAMS,
    durationS: DURATION_S,
    warmUp: WARM_UP,
  };
  const { stdout } = await promisify(execFile)(process.execPath, [
    `${__dirname}/support/bare-agent.js`,
    JSON.stringify(config),
  ]);
  return JSON.parse(stdout) as BareLoadResult;
}

/** Each goal with the service's figure and, where it has one, the bare agent's under the same load. */
function printGoals(rows: [string, number, string, boolean, number | null][]): void {
  process.stdout.write(`\n  ${'goal'.padEnd(42)}   measured  target    met   bare agent, same load\n`);
  for (const [name, value, target, met, bare] of rows) {
    const measured = value.toFixed(2).padStart(9);
    const floor = bare === null ? '' : bare.toFixed(2).padStart(9);
    process.stdout.write(
      `  ${name.padEnd(42)}  ${measured}  ${target.padEnd(8)}  ${(met ? 'yes' : 'no').padEnd(4)}  ${floor}\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
