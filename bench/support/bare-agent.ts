import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';

/**
 * The floor the service is compared with: the same four model calls (router, two agent turns with one
 * query_logs call, SemanticGuard) through a bare ChatOpenAI + createReactAgent and a trivial tool, with
 * no persistence, evidence store, guards or HTTP server.
 */
export function bareDiagnosis(stubUrl: string, query: string): () => Promise<void> {
  const model = new ChatOpenAI({
    model: 'deepseek-chat',
    apiKey: 'stub',
    configuration: { baseURL: stubUrl },
    maxRetries: 0,
  });
  const role = (name: string) => new SystemMessage(`<!-- role: ${name} -->`);
  const queryLogs = tool(async () => JSON.stringify({ evidence_status: 'EVIDENCE_FOUND', patterns: [] }), {
    name: 'query_logs',
    description: 'logs',
    schema: z.object({ topic: z.string(), query: z.string(), lookback_minutes: z.number() }),
  });
  const agent = createReactAgent({
    llm: model,
    tools: [queryLogs],
    prompt: '<!-- role: diagnosis-agent -->',
  });
  return async () => {
    await model.invoke([role('intent-router'), new HumanMessage(query)]);
    await agent.invoke({ messages: [new HumanMessage(query)] });
    await model.invoke([role('semantic-guard'), new HumanMessage('draft')]);
  };
}

export interface BareLoadConfig {
  stubUrl: string;
  query: string;
  streams: number;
  durationS: number;
  warmUp: number;
}

export interface BareLoadResult {
  diagnoses: number;
  elapsedS: number;
  /** This process's own CPU time over the load window (ms). */
  cpuMs: number;
}

/** STREAMS concurrent bare diagnoses for DURATION_S seconds, in this process; its CPU time is the floor. */
export async function runBareLoad(config: BareLoadConfig): Promise<BareLoadResult> {
  const diagnose = bareDiagnosis(config.stubUrl, config.query);
  for (let i = 0; i < config.warmUp; i += 1) await diagnose();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const end = started + config.durationS * 1000;
  let diagnoses = 0;
  await Promise.all(
    Array.from({ length: config.streams }, async () => {
      while (performance.now() < end) {
        await diagnose();
        diagnoses += 1;
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return { diagnoses, elapsedS: (performance.now() - started) / 1000, cpuMs: (cpu.user + cpu.system) / 1000 };
}

if (require.main === module) {
  runBareLoad(JSON.parse(process.argv[2]) as BareLoadConfig)
    .then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`bare agent load failed: ${String(error)}\n`);
      process.exit(1);
    });
}
