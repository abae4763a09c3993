import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { agentTurns, draftJson, SUPPORTED } from '../test/support/diagnosis-scripts';
import { HaproxyFrontend, Replica } from '../test/support/replicas';
import { postChat } from '../test/support/sse-client';
import { percentile, reportBench } from './support/bench-results';
import { cpuMs, machineCpuMs, startStubLlm } from './support/processes';

/**
 * Throughput of one replica and of two behind HAProxy, as a deployment runs them: the stub LLM, each
 * service replica and HAProxy are their own processes; this process only generates load (STREAMS
 * concurrent diagnosis streams, each one that ends replaced, for DURATION seconds per setup).
 */
const STREAMS = Number(process.env.BENCH_REPLICAS_STREAMS ?? 40);
const DURATION_S = Number(process.env.BENCH_REPLICAS_DURATION_S ?? 15);
const MODEL_LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? 200);
const QUERY = 'order-123 payment times out, find out why';

async function startStub(dir: string): Promise<{ url: string; stop: () => void }> {
  const [plan, final] = agentTurns(draftJson());
  const script = join(dir, 'stub-script.json');
  await writeFile(
    script,
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
  const stub = await startStubLlm(script);
  return { url: stub.baseUrl, stop: () => stub.child.kill('SIGTERM') };
}

async function load(
  baseUrl: string,
): Promise<{ done: number; failed: Record<string, number>; latencies: number[] }> {
  const end = Date.now() + DURATION_S * 1000;
  const latencies: number[] = [];
  const failed: Record<string, number> = {};
  const worker = async () => {
    while (Date.now() < end) {
      const started = performance.now();
      const response = await postChat(baseUrl, { query: QUERY }).catch(() => undefined);
      const outcome = response?.events.find((e) => e.event === 'done')?.data.outcome;
      if (outcome === 'SUCCESS') latencies.push(performance.now() - started);
      else {
        const kind = String(outcome ?? `http_${response?.status ?? 'error'}`);
        failed[kind] = (failed[kind] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: STREAMS }, () => worker()));
  return { done: latencies.length, failed, latencies };
}

async function measure(replicaCount: number, llm: string): Promise<Record<string, number>> {
  const replicas = Array.from({ length: replicaCount }, () => new Replica({ LLM_BASE_URL: llm }));
  const proxy = new HaproxyFrontend();
  try {
    for (const replica of replicas) await replica.start();
    await proxy.start(replicas.map((replica) => replica.port));
    // Where the machine's cores went during the load: the replicas, and everything else the setup runs
    // on the same machine (stub LLM, MariaDB, Redis, HAProxy, this load generator).
    const machineBefore = machineCpuMs();
    const replicasBefore = replicas.map((replica) => cpuMs(replica.pid));
    const started = performance.now();
    const { done, failed, latencies } = await load(proxy.baseUrl);
    const elapsedMs = performance.now() - started;
    const machine = machineCpuMs();
    const replicaMs = replicas.reduce((sum, replica, i) => sum + cpuMs(replica.pid) - replicasBefore[i], 0);
    const cores = (ms: number) => Number((ms / elapsedMs).toFixed(2));
    const busyMs = machine.busy - machineBefore.busy;
    return {
      [`${replicaCount}_replica_machine_cores_busy`]: cores(busyMs),
      [`${replicaCount}_replica_machine_cores`]: cores(machine.total - machineBefore.total),
      [`${replicaCount}_replica_service_cores`]: cores(replicaMs),
      [`${replicaCount}_replica_everything_else_cores`]: cores(busyMs - replicaMs),
      [`${replicaCount}_replica_diagnoses_per_s`]: Number((done / DURATION_S).toFixed(1)),
      [`${replicaCount}_replica_p50_ms`]: Math.round(percentile(latencies, 50)),
      [`${replicaCount}_replica_p99_ms`]: Math.round(percentile(latencies, 99)),
      ...Object.fromEntries(
        Object.entries(failed).map(([kind, count]) => [
          `${replicaCount}_replica_${kind.toLowerCase()}`,
          count,
        ]),
      ),
    };
  } finally {
    await proxy.stop();
    for (const replica of replicas) await replica.stop();
  }
}

async function main(): Promise<void> {
  const dbName = process.env.DB_NAME ?? 'superbiz_bench';
  const admin = await createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    user: process.env.DB_USER ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
  });
  await admin.query(`CREATE DATABASE IF NOT EXISTS \`${dbName}\``);
  await admin.end();
  process.env.DB_NAME = dbName;
  process.env.THROTTLE_LIMIT = process.env.THROTTLE_LIMIT ?? '1000000';
  process.env.CHAT_MAX_IN_FLIGHT = process.env.CHAT_MAX_IN_FLIGHT ?? String(STREAMS);
  const dir = await mkdtemp(join(tmpdir(), 'bench-replicas-'));
  const stub = await startStub(dir);
  try {
    const one = await measure(1, stub.url);
    const two = await measure(2, stub.url);
    reportBench('replicas', {
      streams: STREAMS,
      duration_s: DURATION_S,
      model_latency_ms: MODEL_LATENCY_MS,
      llm_bound_ideal_per_s: Number((STREAMS / ((4 * MODEL_LATENCY_MS) / 1000)).toFixed(1)),
      ...one,
      ...two,
    });
  } finally {
    stub.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`replicas bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
