import { INestApplication } from '@nestjs/common';
import { HarnessRetryPolicies, RunContext, ToolBoundary } from '@app/harness';
import { EvidenceTools } from '@app/tools';
import { RunJournalRepository, RunRepository } from '@app/trace';

let runCounter = 0;

/**
 * One lookup_knowledge call through the service's own ToolBoundary, in a run of its own (rows written as
 * a chat run's are): what the agent would read back, parsed. `label` keeps each spec's sessions apart.
 */
export async function lookupKnowledge<Result>(
  app: INestApplication,
  query: string,
  { label, timeoutMs }: { label: string; timeoutMs: number },
): Promise<Result> {
  const sessionId = `s-${label}-${process.pid}`;
  const runId = `r-${label}-${process.pid}-${(runCounter += 1)}`;
  await app.get(RunRepository).startRun({ sessionId, runId, query, ownerKeyDigest: '0'.repeat(64) });
  const ctx = RunContext.start({
    sessionId,
    runId,
    journal: app.get(RunJournalRepository).open(runId),
    timeoutMs,
    retryPolicies: HarnessRetryPolicies.defaults(),
    limits: {
      maxModelCalls: 5,
      maxToolCalls: 5,
      maxCallsPerTool: 5,
      maxInputTokens: 1e6,
      maxOutputTokens: 1e6,
      maxTotalTokens: 2e6,
    },
  });
  try {
    const result = await app
      .get(ToolBoundary)
      .execute(ctx, app.get(EvidenceTools).lookupKnowledge, 'call_lookup', { query });
    return JSON.parse(result.content) as Result;
  } finally {
    ctx.close();
  }
}
