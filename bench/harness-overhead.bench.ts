import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createReactAgent, ToolNode } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { NestFactory } from '@nestjs/core';
import { createConnection } from 'mysql2/promise';
import { z } from 'zod';
import {
  bindHarnessTools,
  GatewayChatModel,
  ModelGateway,
  RunContextFactory,
  ToolBoundary,
  type HarnessToolDefinition,
} from '@app/harness';
import { RunRepository } from '@app/trace';
import { AppModule } from '../apps/server/src/app.module';
import { StubLlmServer } from '../test/support/stub-llm/stub-llm-server';
import { mean, reportBench } from './support/bench-results';

/**
 * The same scripted ReAct run (3 tool calls, 200 ms per model call on the stub LLM) through a bare
 * createReactAgent and through the Harness (gateway, boundary, Redis records, and the run journal's
 * MySQL rows written at the end of the loop, as the diagnosis agent does).
 */
const MODEL_LATENCY_MS = 200;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 10);
const TOOL_CALLS = 3;

const schema = z.object({ query: z.string() });
const execute = async ({ query }: { query: string }) => ({
  lines: Array.from({ length: 50 }, (_, i) => `${query} event ${i}`),
});
const project = (raw: { lines: string[] }, args: { query: string }) => ({
  evidenceStatus: 'EVIDENCE_FOUND' as const,
  result: {
    scope: { query: args.query },
    match_count: raw.lines.length,
    returned_count: 5,
    events: raw.lines.slice(0, 5),
  },
  truncated: true,
});
const definition: HarnessToolDefinition<{ query: string }, { lines: string[] }> = {
  name: 'query_logs',
  description: 'Search application logs.',
  schema,
  readOnly: true,
  failureCodes: [],
  countedList: 'events',
  execute,
  project,
  summarizeArgs: () => ({}),
  label: 'logs',
  evidenceOf: (result) => ({
    source_type: 'LOG',
    source: 'logs',
    scope: '',
    values: result.events,
    demo: false,
  }),
};
const bareTool = tool(
  async (args: { query: string }, config) => {
    const projection = project(await execute(args), args);
    return JSON.stringify({
      evidence_status: projection.evidenceStatus,
      tool_call_id: config.toolCall?.id,
      ...projection.result,
    });
  },
  { name: 'query_logs', description: 'Search application logs.', schema },
);

const SCRIPT = {
  // The bare agent sends no reasoning back, so both sides run under the strict OpenAI profile.
  profile: 'openai' as const,
  repeat: true,
  roles: {
    'diagnosis-agent': [
      {
        delay_ms: MODEL_LATENCY_MS,
        content: '1. check logs',
        tool_calls: Array.from({ length: TOOL_CALLS }, (_, i) => ({
          id: `call_${i + 1}`,
          name: 'query_logs',
          arguments: { query: `q${i}` },
        })),
      },
      { delay_ms: MODEL_LATENCY_MS, content: '{"conclusion": null}' },
    ],
  },
};

async function ensureDatabase(name: string): Promise<void> {
  const connection = await createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    user: process.env.DB_USER ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
  });
  await connection.query(`CREATE DATABASE IF NOT EXISTS \`${name}\``);
  await connection.end();
}

async function main(): Promise<void> {
  const stub = new StubLlmServer(SCRIPT);
  const baseUrl = await stub.start();
  process.env.LLM_BASE_URL = baseUrl;
  process.env.DB_NAME = process.env.DB_NAME ?? 'superbiz_bench';
  await ensureDatabase(process.env.DB_NAME);
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });

  const bareModel = new ChatOpenAI({
    model: 'deepseek-chat',
    apiKey: 'stub',
    configuration: { baseURL: baseUrl },
    maxRetries: 0,
  });
  const prompt = app.get(ModelGateway).prompts.text('diagnosis-agent');
  const bare = createReactAgent({ llm: bareModel, tools: [bareTool], prompt });
  const runBare = () => bare.invoke({ messages: [new HumanMessage('order-123 payment times out')] });

  // Creating the session and run rows is the chat use case's work, not the Harness's: done untimed.
  const prepareRun = async () => {
    const sessionId = randomUUID();
    const runId = randomUUID();
    await app
      .get(RunRepository)
      .startRun({ sessionId, runId, query: 'order-123 payment times out', ownerKeyDigest: '0'.repeat(64) });
    return { sessionId, runId };
  };
  const runHarness = async (run: { sessionId: string; runId: string }) => {
    const ctx = app.get(RunContextFactory).start(run);
    const agent = createReactAgent({
      llm: new GatewayChatModel(app.get(ModelGateway), ctx, 'diagnosis-agent'),
      tools: new ToolNode(bindHarnessTools(app.get(ToolBoundary), ctx, [definition]), {
        handleToolErrors: false,
      }),
    });
    try {
      await agent.invoke(
        { messages: [new HumanMessage('order-123 payment times out')] },
        { signal: ctx.signal },
      );
      // The agent loop's trace rows are written when it ends, as DiagnosisAgent does: timed with it.
      await ctx.journal.flush();
    } finally {
      ctx.close();
    }
  };

  const time = async <T>(prepare: () => Promise<T>, run: (input: T) => Promise<unknown>) => {
    const samples: number[] = [];
    await run(await prepare());
    for (let i = 0; i < ITERATIONS; i += 1) {
      const input = await prepare();
      const started = performance.now();
      await run(input);
      samples.push(performance.now() - started);
    }
    return samples;
  };

  const bareMs = await time(async () => undefined, runBare);
  const harnessMs = await time(prepareRun, runHarness);
  await app.close();
  await stub.stop();

  reportBench('harness_overhead', {
    iterations: ITERATIONS,
    model_latency_ms: MODEL_LATENCY_MS,
    tool_calls_per_run: TOOL_CALLS,
    bare_mean_ms: mean(bareMs),
    harness_mean_ms: mean(harnessMs),
    wall_time_ratio: mean(harnessMs) / mean(bareMs),
    ratio_goal: '<= 1.05',
    overhead_per_tool_call_ms: (mean(harnessMs) - mean(bareMs)) / TOOL_CALLS,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
