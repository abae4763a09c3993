import 'reflect-metadata';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { createApp } from '../apps/server/src/bootstrap';
import { agentTurns, draftJson, SUPPORTED } from '../test/support/diagnosis-scripts';
import { postChat } from '../test/support/sse-client';
import { StubLlmServer } from '../test/support/stub-llm/stub-llm-server';
import { mean, percentile, reportBench } from './support/bench-results';

/**
 * N concurrent diagnosis streams over real HTTP against the full service (routing, ReAct loop with a
 * query_logs call, EvidenceGuard, SemanticGuard, release, MySQL and Redis writes) on the stub LLM with
 * a fixed latency per model call. Prints completion counts, time to metadata and to done, event-loop
 * lag, and the tokens one diagnosis spends.
 */
const STREAMS = Number(process.env.BENCH_CHAT_STREAMS ?? 100);
const MODEL_LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? 200);

async function main(): Promise<void> {
  const [plan, final] = agentTurns(draftJson());
  const stub = new StubLlmServer({
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
    repeat: true,
  });
  const dbName = process.env.DB_NAME ?? 'superbiz_bench';
  const admin = await createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    user: process.env.DB_USER ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
  });
  await admin.query(`CREATE DATABASE IF NOT EXISTS \`${dbName}\``);
  Object.assign(process.env, {
    LLM_BASE_URL: await stub.start(),
    DB_NAME: dbName,
    DB_POOL_SIZE: '20',
    CHAT_MAX_IN_FLIGHT: String(STREAMS),
    CHAT_MAX_QUEUE: '0',
    HARNESS_RUN_TIMEOUT_MS: '120000',
  });
  const app = await createApp();
  await app.listen(0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;

  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      const t0 = performance.now();
      let metadataMs = NaN;
      const response = await postChat(
        baseUrl,
        { query: 'order-123 payment times out, find out why' },
        {
          stopWhen: (events) => {
            if (Number.isNaN(metadataMs) && events.length > 0) metadataMs = performance.now() - t0;
            return false;
          },
        },
      );
      return { response, metadataMs, totalMs: performance.now() - t0 };
    }),
  );
  const wallMs = performance.now() - started;
  lag.disable();

  const outcomes = results.map(({ response }) => response.events.at(-1)?.data.outcome);
  const completed = outcomes.filter((outcome) => outcome === 'SUCCESS').length;
  const runIds = results.map(({ response }) => String(response.events[0]?.data.run_id));
  const [tokens] = await admin.query<RowDataPacket[]>(
    `SELECT AVG(input_tokens) AS input_tokens, AVG(output_tokens) AS output_tokens, AVG(model_calls) AS model_calls FROM \`${dbName}\`.diagnosis_run WHERE run_id IN (?)`,
    [runIds],
  );
  await admin.end();
  await app.close();
  await stub.stop();

  const metadata = results.map((result) => result.metadataMs).filter((ms) => !Number.isNaN(ms));
  const totals = results.map((result) => result.totalMs);
  reportBench('chat_load', {
    streams: STREAMS,
    model_latency_ms: MODEL_LATENCY_MS,
    completed_success: completed,
    failed: STREAMS - completed,
    wall_ms: wallMs,
    metadata_p50_ms: percentile(metadata, 50),
    metadata_p99_ms: percentile(metadata, 99),
    total_p50_ms: percentile(totals, 50),
    total_p99_ms: percentile(totals, 99),
    total_mean_ms: mean(totals),
    event_loop_lag_p99_ms: lag.percentile(99) / 1e6,
    model_calls_per_diagnosis: Number(tokens[0].model_calls),
    input_tokens_per_diagnosis: Number(tokens[0].input_tokens),
    output_tokens_per_diagnosis: Number(tokens[0].output_tokens),
  });
  if (completed !== STREAMS) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
