import { createConnection, RowDataPacket } from 'mysql2/promise';
import { randomUUID } from 'node:crypto';
import { HarnessRetryPolicies, RunContext } from '@app/harness';
import {
  AgentStepRepository,
  RunJournalRepository,
  RunRepository,
  TimelineRepository,
  ToolInvocationRepository,
} from '@app/trace';
import { createHarnessFixture, HarnessFixture, startTestRun } from '../support/harness-fixture';
import { TEST_RUN_LIMITS } from '../support/run-limits';
import { TEST_MYSQL } from '../support/test-env';

/**
 * The run journal against real MySQL: what a flush makes visible, the terminal write in one
 * transaction with the conditional terminal UPDATE, and what happens when the run had already left
 * RUNNING (closed by another replica's lease reaper).
 */
describe('run journal (real MySQL)', () => {
  let fixture: HarnessFixture;

  beforeAll(async () => {
    fixture = await createHarnessFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  async function sql(text: string, params: unknown[]): Promise<RowDataPacket[]> {
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      return (await connection.query<RowDataPacket[]>(text, params))[0];
    } finally {
      await connection.end();
    }
  }

  const STEP = {
    role: 'system-chat',
    attempt: 1,
    status: 'OK' as const,
    errorCode: null,
    finishReason: 'stop',
    toolCallCount: 0,
    inputTokens: 10,
    outputTokens: 2,
    totalTokens: 12,
    startedAt: new Date(),
    durationMs: 3,
  };
  const FINISH = {
    status: 'SUCCESS' as const,
    releaseOutcome: 'SUCCESS' as const,
    modelCalls: 1,
    toolCalls: 1,
    inputTokens: 10,
    outputTokens: 2,
    totalTokens: 12,
    durationMs: 40,
  };

  function recordTurn(ctx: RunContext, stepIndex: number): void {
    ctx.journal.modelStep(
      { ...STEP, stepIndex },
      { contentSource: 'ASSISTANT_TEXT_ONLY', reasoningContent: null, assistantText: `answer ${stepIndex}` },
    );
    ctx.journal.event('AGENT', 'MODEL_STEP', { step_index: stepIndex });
    ctx.journal.toolInvocation({
      toolCallId: `call_${stepIndex}`,
      toolName: 'query_logs',
      status: 'READY',
      evidenceStatus: 'EVIDENCE_FOUND',
      errorCode: null,
      argSummary: { topic: 'APPLICATION' },
      requestBytes: 10,
      rawBytes: 20,
      agentResultBytes: 30,
      truncated: false,
      startedAt: new Date(),
      durationMs: 4,
    });
  }

  it('makes nothing visible before a flush, then every row, with the intent, dated when it happened', async () => {
    const ctx = await startTestRun(fixture);
    ctx.journal.event('RUN', 'RUN_STARTED');
    await new Promise((resolve) => setTimeout(resolve, 300));
    ctx.journal.setIntent('DIAGNOSIS');
    recordTurn(ctx, 1);
    const timeline = fixture.app.get(TimelineRepository);
    expect(await timeline.listForRun(ctx.runId)).toEqual([]);

    await ctx.journal.flush();
    const events = await timeline.listForRun(ctx.runId);
    expect(events.map((event) => event.eventType)).toEqual(['RUN_STARTED', 'MODEL_STEP']);
    // Written together, yet each keeps the (database) time it happened at.
    expect(events[1].createdAt.getTime() - events[0].createdAt.getTime()).toBeGreaterThanOrEqual(250);
    expect((await fixture.app.get(RunRepository).findRun(ctx.runId))?.intent).toBe('DIAGNOSIS');
    expect(await fixture.app.get(AgentStepRepository).listReasoning(ctx.runId)).toEqual([
      expect.objectContaining({ stepIndex: 1, assistantText: 'answer 1' }),
    ]);
    expect(await fixture.app.get(ToolInvocationRepository).listForRun(ctx.runId)).toEqual([
      expect.objectContaining({
        toolCallId: 'call_1',
        argSummary: { topic: 'APPLICATION' },
        truncated: false,
      }),
    ]);
    ctx.close();
  });

  it('stores the terminal state with the rest of the journal, RUN_FINISHED last', async () => {
    const ctx = await startTestRun(fixture);
    ctx.journal.event('RUN', 'RUN_STARTED');
    await ctx.journal.flush();
    recordTurn(ctx, 1);
    await expect(ctx.journal.finish(FINISH)).resolves.toBe(true);
    const events = await fixture.app.get(TimelineRepository).listForRun(ctx.runId);
    expect(events.map((event) => [event.eventType, event.details])).toEqual([
      ['RUN_STARTED', null],
      ['MODEL_STEP', { step_index: 1 }],
      ['RUN_FINISHED', { status: 'SUCCESS' }],
    ]);
    expect(await fixture.app.get(RunRepository).findRun(ctx.runId)).toMatchObject({
      status: 'SUCCESS',
      modelCalls: 1,
      durationMs: 40,
    });
    ctx.close();
  });

  it('when the run had already left RUNNING: keeps that state, still writes the rows, no RUN_FINISHED', async () => {
    const ctx = await startTestRun(fixture);
    recordTurn(ctx, 1);
    await sql(
      "UPDATE diagnosis_run SET status = 'FAILED', release_outcome = 'FAILED', error_code = 'ABANDONED' WHERE run_id = ?",
      [ctx.runId],
    );
    await expect(ctx.journal.finish(FINISH)).resolves.toBe(false);
    expect(await fixture.app.get(RunRepository).findRun(ctx.runId)).toMatchObject({
      status: 'FAILED',
      errorCode: 'ABANDONED',
    });
    const events = await fixture.app.get(TimelineRepository).listForRun(ctx.runId);
    expect(events.map((event) => event.eventType)).toEqual(['MODEL_STEP']);
    expect(await fixture.app.get(AgentStepRepository).listSteps(ctx.runId)).toHaveLength(1);
    ctx.close();
  });

  it('writes the terminal state and the rows atomically: a row MySQL refuses leaves the run RUNNING', async () => {
    const ctx = await startTestRun(fixture);
    recordTurn(ctx, 1);
    await ctx.journal.flush();
    recordTurn(ctx, 1); // the same step index again: uq_agent_step_run_step refuses it
    await expect(ctx.journal.finish(FINISH)).rejects.toThrow();
    expect((await fixture.app.get(RunRepository).findRun(ctx.runId))?.status).toBe('RUNNING');
    expect(
      (await fixture.app.get(TimelineRepository).listForRun(ctx.runId)).map((event) => event.eventType),
    ).toEqual(['MODEL_STEP']);
    ctx.close();
  });
  it('rolls a failed transaction back on its connection: later writes on the pool never commit its part', async () => {
    const failed = await startTestRun(fixture);
    recordTurn(failed, 1);
    await failed.journal.flush();
    recordTurn(failed, 1);
    await expect(failed.journal.finish(FINISH)).rejects.toThrow();
    failed.close();
    // More flushes than the pool has connections. Had the failed packet's transaction been left open,
    // the next START TRANSACTION on that connection would commit its terminal UPDATE and events.
    const runs = await Promise.all(Array.from({ length: 25 }, () => startTestRun(fixture)));
    for (const [index, ctx] of runs.entries()) {
      ctx.journal.event('RUN', 'RUN_STARTED', { n: index });
      await ctx.journal.flush();
    }
    const rows = await sql(
      `SELECT COUNT(*) AS n FROM diagnosis_trace_event WHERE event_type = 'RUN_STARTED' AND run_id IN (?)`,
      [runs.map((ctx) => ctx.runId)],
    );
    expect(Number(rows[0].n)).toBe(25);
    expect((await fixture.app.get(RunRepository).findRun(failed.runId))?.status).toBe('RUNNING');
    expect(
      (await fixture.app.get(TimelineRepository).listForRun(failed.runId)).map((event) => event.eventType),
    ).toEqual(['MODEL_STEP']);
    for (const ctx of runs) ctx.close();
  });

  it('stores a question with quotes, semicolons and comment marks verbatim: one packet, still one value', async () => {
    const query = `x'); DROP TABLE diagnosis_run; -- \\'; SELECT 1; /* */ "`;
    const runId = `r-${randomUUID()}`;
    await fixture.app
      .get(RunRepository)
      .startRun({ sessionId: `s-${randomUUID()}`, runId, query, ownerKeyDigest: '0'.repeat(64) });
    expect((await fixture.app.get(RunRepository).findRun(runId))?.query).toBe(query);
    const ctx = RunContext.start({
      sessionId: 's',
      runId,
      journal: fixture.app.get(RunJournalRepository).open(runId),
      timeoutMs: 30_000,
      retryPolicies: HarnessRetryPolicies.defaults(),
      limits: TEST_RUN_LIMITS,
    });
    ctx.journal.event('RUN', 'RUN_STARTED', { query });
    expect(await ctx.journal.finish(FINISH)).toBe(true);
    const [event] = await sql(
      `SELECT details FROM diagnosis_trace_event WHERE run_id = ? AND event_type = 'RUN_STARTED'`,
      [runId],
    );
    const details: unknown = event.details;
    expect(typeof details === 'string' ? JSON.parse(details) : details).toEqual({ query });
    ctx.close();
  });
});
