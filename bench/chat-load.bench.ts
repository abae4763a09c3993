import 'reflect-metadata';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { z } from 'zod';
import { createApp } from '../apps/server/src/bootstrap';
import { agentTurns, draftJson, SUPPORTED } from '../test/support/diagnosis-scripts';
import { postChat } from '../test/support/sse-client';
import { StubLlmServer } from '../test/support/stub-llm/stub-llm-server';
import { mean, percentile, reportBench } from './support/bench-results';

/**
 * Sustained load on the full service over real HTTP: STREAMS concurrent diagnosis streams (each one that
 * ends is replaced) for DURATION seconds, on the stub LLM with a fixed latency per model call (routing,
 * two agent turns with a query_logs call, SemanticGuard). Then the same scripted run, one at a time,
 * through the full service and through a bare createReactAgent making the same four model calls.
 */
const STREAMS = Number(process.env.BENCH_CHAT_STREAMS ?? 200);
const DURATION_S = Number(process.env.BENCH_CHAT_DURATION_S ?? 60);
const MODEL_LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? 200);
const SEQUENTIAL_RUNS = 10;
const QUERY = 'order-123 payment times out, find out why';

async function main(): Promise<void> {
  const [plan, final] = agentTurns(draftJson());
  const stub = new StubLlmServer({
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
  });
  const dbName = process.env.DB_NAME ?? 'superbiz_bench';
  const admin = await createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    user: process.env.DB_USER ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
  });
  await admin.query(`CREATE DATABASE IF NOT EXISTS \`${dbName}\``);
  const baseURL = await stub.start();
  Object.assign(process.env, {
    LLM_BASE_URL: baseURL,
    DB_NAME: dbName,
    DB_POOL_SIZE: '20',
    CHAT_MAX_IN_FLIGHT: String(STREAMS),
    CHAT_MAX_QUEUE: '0',
    THROTTLE_LIMIT: '1000000',
    HARNESS_RUN_TIMEOUT_MS: '120000',
  });
  const app = await createApp();
  await app.listen(0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;

  const oneDiagnosis = async () => {
    const t0 = performance.now();
    let metadataMs = NaN;
    const response = await postChat(
      baseUrl,
      { query: QUERY },
      {
        stopWhen: (events) => {
          if (Number.isNaN(metadataMs) && events.length > 0) metadataMs = performance.now() - t0;
          return false;
        },
      },
    );
    return {
      outcome: response.events.at(-1)?.data.outcome,
      runId: String(response.events[0]?.data.run_id),
      metadataMs,
      totalMs: performance.now() - t0,
    };
  };

  // Sustained phase.
  let peakRss = process.memoryUsage().rss;
  const memory = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 250);
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const results: Awaited<ReturnType<typeof oneDiagnosis>>[] = [];
  const end = performance.now() + DURATION_S * 1000;
  await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      while (performance.now() < end) results.push(await oneDiagnosis());
    }),
  );
  lag.disable();
  clearInterval(memory);

  // One at a time: the full service vs a bare agent with the same four model calls.
  const fullMs: number[] = [];
  for (let i = 0; i < SEQUENTIAL_RUNS; i += 1) fullMs.push((await oneDiagnosis()).totalMs);
  const model = new ChatOpenAI({
    model: 'deepseek-chat',
    apiKey: 'stub',
    configuration: { baseURL },
    maxRetries: 0,
  });
  const role = (name: string) => new SystemMessage(`<!-- role: ${name} -->`);
  const queryLogs = tool(async () => JSON.stringify({ evidence_status: 'EVIDENCE_FOUND', patterns: [] }), {
    name: 'query_logs',
    description: 'logs',
    schema: z.object({ topic: z.string(), query: z.string(), lookback_minutes: z.number() }),
  });
  const bare = createReactAgent({ llm: model, tools: [queryLogs], prompt: '<!-- role: diagnosis-agent -->' });
  const bareMs: number[] = [];
  for (let i = 0; i < SEQUENTIAL_RUNS; i += 1) {
    const t0 = performance.now();
    await model.invoke([role('intent-router'), new HumanMessage(QUERY)]);
    await bare.invoke({ messages: [new HumanMessage(QUERY)] });
    await model.invoke([role('semantic-guard'), new HumanMessage('draft')]);
    bareMs.push(performance.now() - t0);
  }

  const [tokens] = await admin.query<RowDataPacket[]>(
    `SELECT AVG(input_tokens) AS input_tokens, AVG(output_tokens) AS output_tokens, AVG(model_calls) AS model_calls FROM \`${dbName}\`.diagnosis_run WHERE run_id IN (?)`,
    [results.slice(0, 500).map((result) => result.runId)],
  );
  await admin.end();
  await app.close();
  await stub.stop();

  const completed = results.filter((result) => result.outcome === 'SUCCESS').length;
  const metadata = results.map((result) => result.metadataMs).filter((ms) => !Number.isNaN(ms));
  const totals = results.map((result) => result.totalMs);
  reportBench('chat_load', {
    streams: STREAMS,
    duration_s: DURATION_S,
    model_latency_ms: MODEL_LATENCY_MS,
    diagnoses: results.length,
    completed_success: completed,
    failed: results.length - completed,
    diagnoses_per_second: results.length / DURATION_S,
    metadata_p50_ms: percentile(metadata, 50),
    metadata_p99_ms: percentile(metadata, 99),
    total_p50_ms: percentile(totals, 50),
    total_p99_ms: percentile(totals, 99),
    event_loop_lag_p99_ms: lag.percentile(99) / 1e6,
    rss_peak_mb: peakRss / 1024 / 1024,
    sequential_full_service_mean_ms: mean(fullMs),
    sequential_bare_agent_mean_ms: mean(bareMs),
    full_vs_bare_ratio: mean(fullMs) / mean(bareMs),
    model_calls_per_diagnosis: Number(tokens[0].model_calls),
    input_tokens_per_diagnosis: Number(tokens[0].input_tokens),
    output_tokens_per_diagnosis: Number(tokens[0].output_tokens),
  });
  if (completed !== results.length) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
