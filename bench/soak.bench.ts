import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { agentTurns, draftJson, SUPPORTED } from '../test/support/diagnosis-scripts';
import { reportBench } from './support/bench-results';
import { boundPort, generateLoad, startStubLlm, stop, waitForHttp } from './support/processes';

/**
 * Memory under sustained load (`npm run bench -- soak`): the built service in its own process, started
 * by this bench with --expose-gc and the bench's heap probe (bench/support/heap-probe.ts), the stub LLM
 * in another and the load generator in a third keep STREAMS diagnoses going for DURATION_S seconds,
 * split into WINDOWS equal windows. After a warm-up and after each window: heap-used after a forced full
 * GC, and RSS. The goal: heap-used grows ≤ 5 % between the last two windows; RSS levels off.
 */
const DURATION_S = Number(process.env.BENCH_SOAK_DURATION_S ?? 180);
const WINDOWS = Math.max(3, Number(process.env.BENCH_SOAK_WINDOWS ?? 3));
const STREAMS = Number(process.env.BENCH_SOAK_STREAMS ?? 20);
const MODEL_LATENCY_MS = Number(process.env.BENCH_SOAK_MODEL_LATENCY_MS ?? 50);
const WARM_UP = 200;
const QUERY = 'order-123 payment times out, find out why';
const API_KEY = process.env.TEST_CHAT_API_KEY ?? 'superbiz-dev-key-change-me';

interface Sample {
  diagnoses: number;
  heapUsedMb: number;
  rssMb: number;
}

async function main(): Promise<void> {
  const [plan, final] = agentTurns(draftJson());
  const scriptFile = join(mkdtempSync(join(tmpdir(), 'bench-soak-')), 'script.json');
  const delay = { delay_ms: MODEL_LATENCY_MS };
  writeFileSync(
    scriptFile,
    JSON.stringify({
      profile: 'openai',
      repeat: true,
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS', ...delay }],
        'diagnosis-agent': [
          { ...plan, turn: 0, ...delay },
          { ...final, turn: 1, ...delay },
        ],
        'semantic-guard': [{ ...SUPPORTED, ...delay }],
      },
    }),
  );
  const dbName = process.env.DB_NAME ?? `superbiz_bench_soak_${Date.now().toString(36)}`;
  const admin = await createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    user: process.env.DB_USER ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
  });
  await admin.query(`CREATE DATABASE IF NOT EXISTS \`${dbName}\``);
  const stub = await startStubLlm(scriptFile);
  const service = spawn(
    process.execPath,
    ['--expose-gc', '-r', resolve(__dirname, 'support/heap-probe.js'), 'dist/apps/server/src/main.js'],
    {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LLM_BASE_URL: stub.baseUrl,
        DB_NAME: dbName,
        CHAT_MAX_IN_FLIGHT: String(STREAMS),
        CHAT_MAX_QUEUE: '0',
        THROTTLE_LIMIT: '1000000',
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  try {
    const baseUrl = `http://127.0.0.1:${await boundPort(service, 'the service')}`;
    await waitForHttp(`${baseUrl}/health`);
    const load = (durationS?: number, count?: number) =>
      generateLoad({ baseUrl, apiKey: API_KEY, query: QUERY, streams: STREAMS, durationS, count });
    const warmUp = await load(undefined, WARM_UP);
    const samples: Sample[] = [{ diagnoses: warmUp.length, ...(await heapOf(service)) }];
    const outcomes: Record<string, number> = {};
    for (let window = 0; window < WINDOWS; window += 1) {
      const runs = await load(DURATION_S / WINDOWS);
      for (const run of runs) outcomes[run.outcome] = (outcomes[run.outcome] ?? 0) + 1;
      samples.push({ diagnoses: runs.length, ...(await heapOf(service)) });
    }
    const [previous, last] = samples.slice(-2);
    const heapGrowth = (100 * (last.heapUsedMb - previous.heapUsedMb)) / previous.heapUsedMb;
    const rssGrowth = (100 * (last.rssMb - previous.rssMb)) / previous.rssMb;
    const figures: Record<string, number | string> = {
      setup: 'service (--expose-gc, bench heap probe), stub LLM and load generator each in their own process',
      streams: STREAMS,
      model_latency_ms: MODEL_LATENCY_MS,
      window_s: DURATION_S / WINDOWS,
      outcomes: Object.entries(outcomes)
        .map(([outcome, count]) => `${outcome}=${count}`)
        .join(' '),
    };
    samples.forEach((sample, index) => {
      const name = index === 0 ? 'after_warm_up' : `after_window_${index}`;
      figures[`${name}_diagnoses`] = sample.diagnoses;
      figures[`${name}_heap_used_after_gc_mb`] = sample.heapUsedMb;
      figures[`${name}_rss_mb`] = sample.rssMb;
    });
    figures.heap_growth_last_two_windows_percent = heapGrowth;
    figures.rss_growth_last_two_windows_percent = rssGrowth;
    reportBench('soak', figures);
    process.stdout.write(
      `\n  goal (issue 26)                                  measured  target  met\n` +
        `  heap-used after GC, last two windows (%)         ${heapGrowth.toFixed(2).padStart(8)}  <= 5    ${heapGrowth <= 5 ? 'yes' : 'no'}\n`,
    );
    const notSuccess = Object.entries(outcomes).filter(([outcome]) => outcome !== 'SUCCESS');
    if (notSuccess.length > 0) process.exitCode = 1;
  } finally {
    await stop(service);
    await stop(stub.child);
    await admin.query(`DROP DATABASE IF EXISTS \`${dbName}\``).catch(() => undefined);
    await admin.end();
  }
}

/** Heap-used after a forced full GC and RSS of the service (MB), through the heap probe. */
function heapOf(service: ChildProcess): Promise<{ heapUsedMb: number; rssMb: number }> {
  return new Promise((resolveHeap, reject) => {
    const timer = setTimeout(() => reject(new Error('the service heap probe did not answer')), 30_000);
    service.once('message', (message: { heap: NodeJS.MemoryUsage }) => {
      clearTimeout(timer);
      resolveHeap({ heapUsedMb: message.heap.heapUsed / 2 ** 20, rssMb: message.heap.rss / 2 ** 20 });
    });
    service.send('heap');
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
