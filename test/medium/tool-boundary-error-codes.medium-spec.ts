import { getEventListeners } from 'node:events';
import {
  BoundaryResult,
  InvocationStore,
  RunCancelled,
  RunContext,
  RunDeadlineExceeded,
  ToolBoundary,
  ToolFailure,
} from '@app/harness';
import { ToolInvocationRepository } from '@app/trace';
import { fakeLogTool, slowTool } from '../support/fake-tools';
import {
  createHarnessFixture,
  HarnessFixture,
  startTestRun,
  TestRunOptions,
} from '../support/harness-fixture';

/**
 * The service tier for the tool boundary: ToolBoundary itself against real Redis and MySQL, no HTTP and
 * no model. One row per error code: the code the agent sees, the ERROR record in Redis (when one may be
 * written) and the audit row in MySQL must all agree.
 */
interface Row {
  code: string;
  /** Whether the boundary may write an ERROR record to Redis for this code. */
  stored: boolean;
  run?: TestRunOptions;
  call(boundary: ToolBoundary, ctx: RunContext): Promise<BoundaryResult>;
}

const ARGS = { query: 'HikariPool', count: 1 };
const idle = { aborted: false };

const ROWS: Row[] = [
  {
    code: 'INVALID_TOOL_CALL_ID',
    stored: false,
    call: (boundary, ctx) => boundary.execute(ctx, fakeLogTool(), 'bad id!', ARGS),
  },
  {
    code: 'DUPLICATE_TOOL_CALL_ID',
    stored: false,
    call: async (boundary, ctx) => {
      await boundary.execute(ctx, fakeLogTool(), 'call_code', ARGS);
      return boundary.execute(ctx, fakeLogTool(), 'call_code', ARGS);
    },
  },
  {
    code: 'UNKNOWN_TOOL',
    stored: true,
    call: (boundary, ctx) => boundary.rejectUnknownTool(ctx, 'drop_tables', 'call_code', {}, ['query_logs']),
  },
  {
    code: 'INVALID_ARGUMENTS',
    stored: true,
    call: (boundary, ctx) => boundary.execute(ctx, fakeLogTool(), 'call_code', { query: '', count: -1 }),
  },
  {
    code: 'TOOL_NOT_READ_ONLY',
    stored: true,
    call: (boundary, ctx) =>
      boundary.execute(ctx, fakeLogTool({ readOnly: false as unknown as true }), 'call_code', ARGS),
  },
  {
    code: 'BUDGET_EXHAUSTED',
    stored: true,
    run: { limits: { maxToolCalls: 0 } },
    call: (boundary, ctx) => boundary.execute(ctx, fakeLogTool(), 'call_code', ARGS),
  },
  {
    code: 'UNKNOWN_DATA_SOURCE',
    stored: true,
    call: (boundary, ctx) =>
      boundary.execute(
        ctx,
        fakeLogTool({
          failureCodes: ['UNKNOWN_DATA_SOURCE'],
          execute: () => Promise.reject(new ToolFailure('UNKNOWN_DATA_SOURCE', 'no such source')),
        }),
        'call_code',
        ARGS,
      ),
  },
  {
    code: 'TOOL_FAILED',
    stored: true,
    call: (boundary, ctx) =>
      boundary.execute(
        ctx,
        fakeLogTool({ execute: () => Promise.reject(new Error('boom')) }),
        'call_code',
        ARGS,
      ),
  },
  {
    code: 'TOOL_TIMEOUT',
    stored: true,
    call: (boundary, ctx) => boundary.execute(ctx, slowTool(10_000, { ...idle }), 'call_code', ARGS),
  },
  {
    code: 'PROJECTION_FAILED',
    stored: true,
    call: (boundary, ctx) =>
      boundary.execute(
        ctx,
        fakeLogTool({
          project: () => {
            throw new Error('bad projection');
          },
        }),
        'call_code',
        ARGS,
      ),
  },
  {
    code: 'RESULT_TOO_LARGE',
    stored: true,
    call: (boundary, ctx) => boundary.execute(ctx, fakeLogTool(), 'call_code', { query: 'q', count: 20_000 }),
  },
  {
    code: 'RUN_EVIDENCE_LIMIT',
    stored: true,
    run: { limits: { maxToolCalls: 50, maxCallsPerTool: 50 } },
    call: async (boundary, ctx) => {
      for (let i = 0; i < 20; i++) {
        const result = await boundary.execute(ctx, fakeLogTool(), `call_fill_${i}`, {
          query: 'q',
          count: 300,
        });
        if (result.isError) return result;
      }
      throw new Error('the run byte limit was never reached');
    },
  },
];

describe('ToolBoundary error codes (service tier: real Redis and MySQL, no HTTP)', () => {
  let fixture: HarnessFixture;

  beforeAll(async () => {
    fixture = await createHarnessFixture({
      harnessEnv: {
        HARNESS_EVIDENCE_MAX_RECORD_BYTES: String(64 * 1024),
        HARNESS_EVIDENCE_MAX_AGENT_RESULT_BYTES: String(4 * 1024),
        HARNESS_EVIDENCE_MAX_RUN_BYTES: String(128 * 1024),
        HARNESS_TOOL_CALL_TIMEOUT_MS: '300',
      },
    });
  });
  afterAll(() => fixture.close());

  it.each(ROWS.map((row) => [row.code, row] as const))('%s', async (code, row) => {
    const ctx = await startTestRun(fixture, row.run);
    try {
      const result = await row.call(fixture.app.get(ToolBoundary), ctx);
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content)).toMatchObject({ evidence_status: 'ERROR', error_code: code });
      expect(result.content).not.toContain('RAW-ONLY-MARKER');
      const id = result.agentResult.tool_call_id;
      const record = await fixture.app.get(InvocationStore).get(ctx.runId, id);
      if (row.stored) expect(record).toMatchObject({ status: 'ERROR', error_code: code });
      else expect(record?.error_code ?? null).not.toBe(code);
      await ctx.journal.flush();
      const audit = await fixture.app.get(ToolInvocationRepository).listForRun(ctx.runId);
      expect(audit.at(-1)).toMatchObject({ status: 'ERROR', errorCode: code });
    } finally {
      ctx.close();
    }
  });

  it.each([
    ['CANCELLED', RunCancelled],
    ['DEADLINE_EXCEEDED', RunDeadlineExceeded],
  ] as const)('%s is recorded, then ends the run', async (code, errorClass) => {
    const client = new AbortController();
    const ctx = await startTestRun(fixture, {
      parentSignal: client.signal,
      timeoutMs: code === 'DEADLINE_EXCEEDED' ? 100 : 30_000,
    });
    const boundary = fixture.app.get(ToolBoundary);
    // The per-call timeout is 300 ms: cancel well before it.
    const pending = boundary.execute(ctx, slowTool(10_000, { ...idle }), 'call_stop', ARGS);
    if (code === 'CANCELLED') setTimeout(() => client.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(errorClass);
    expect(await fixture.app.get(InvocationStore).get(ctx.runId, 'call_stop')).toMatchObject({
      status: 'ERROR',
      error_code: code,
    });
    ctx.close();
  });

  // The deadline (100 ms) comes before the tool's own timeout (300 ms): the outcome is the deadline's by
  // rule, whichever timer the event loop serves first.
  it('a call whose timer is bounded by the deadline always ends DEADLINE_EXCEEDED', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const ctx = await startTestRun(fixture, { timeoutMs: 60 + 10 * i });
        const boundary = fixture.app.get(ToolBoundary);
        const outcome = await boundary
          .execute(ctx, slowTool(10_000, { ...idle }), `call_race_${i}`, ARGS)
          .then(
            () => 'completed',
            (error: unknown) => (error instanceof RunDeadlineExceeded ? 'DEADLINE_EXCEEDED' : String(error)),
          );
        ctx.close();
        return outcome;
      }),
    );
    expect(outcomes).toEqual(Array(8).fill('DEADLINE_EXCEEDED'));
  });

  // A listener left on the run's signal keeps the call, and through it the agent graph, alive until the
  // run ends: a long-running service then grows with every tool call it has served.
  it.each([
    ['a completed call', () => fakeLogTool()],
    ['a failed call', () => fakeLogTool({ execute: () => Promise.reject(new Error('boom')) })],
    ['a timed-out call', () => slowTool(10_000, { ...idle })],
  ] as const)('%s leaves no listener on the run signal', async (_, tool) => {
    const ctx = await startTestRun(fixture);
    const before = getEventListeners(ctx.signal, 'abort').length;
    const boundary = fixture.app.get(ToolBoundary);
    for (let i = 0; i < 3; i++) await boundary.execute(ctx, tool(), `call_listener_${i}`, ARGS);
    expect(getEventListeners(ctx.signal, 'abort')).toHaveLength(before);
    ctx.close();
  });
});

describe('ToolBoundary error codes with the evidence store down', () => {
  let fixture: HarnessFixture;

  beforeAll(async () => {
    fixture = await createHarnessFixture({ redis: { port: 1, connectTimeoutMs: 200 } });
  });
  afterAll(() => fixture.close());

  it('EVIDENCE_STORE_UNAVAILABLE: nothing runs, the call is still audited', async () => {
    const ctx = await startTestRun(fixture);
    let ran = false;
    const tool = fakeLogTool({ execute: async () => ((ran = true), { lines: [], secret_marker: '' }) });
    const result = await fixture.app.get(ToolBoundary).execute(ctx, tool, 'call_down', ARGS);
    expect(JSON.parse(result.content)).toMatchObject({ error_code: 'EVIDENCE_STORE_UNAVAILABLE' });
    expect(ran).toBe(false);
    await ctx.journal.flush();
    const audit = await fixture.app.get(ToolInvocationRepository).listForRun(ctx.runId);
    expect(audit).toEqual([expect.objectContaining({ errorCode: 'EVIDENCE_STORE_UNAVAILABLE' })]);
    ctx.close();
  });
});
