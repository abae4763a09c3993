import { fakeLogTool, FakeRaw, slowTool } from '@test/support/fake-tools';
import {
  heldPace,
  MemoryInvocationStore,
  startUnitRun,
  StoreAnswer,
  unitHarnessConfig,
} from '@test/support/unit-harness';
import { BudgetAudit } from '../run/budget-audit';
import { RunCancelled, RunDeadlineExceeded } from '../run/harness-errors';
import { RunContext } from '../run/run-context';
import { HarnessToolDefinition, ToolFailure } from './harness-tool-definition';
import { ToolBoundary } from './tool-boundary';

type FakeTool = HarnessToolDefinition<{ query: string; count: number }, FakeRaw>;

const ARGS = { query: 'order-123 timeout', count: 2 };

function setup(harnessEnv: Record<string, string> = {}) {
  const config = unitHarnessConfig(harnessEnv);
  const store = new MemoryInvocationStore(config);
  const boundary = new ToolBoundary(store, new BudgetAudit(), config);
  return { store, boundary };
}

async function callOnce(
  tool: FakeTool,
  options: {
    toolCallId?: unknown;
    args?: unknown;
    answers?: StoreAnswer[];
    harnessEnv?: Record<string, string>;
    ctx?: RunContext;
  } = {},
) {
  const { store, boundary } = setup(options.harnessEnv);
  const { ctx, store: journal } = options.ctx ? { ctx: options.ctx, store: null } : startUnitRun();
  store.answers.push(...(options.answers ?? []));
  const id = 'toolCallId' in options ? options.toolCallId : 'call_1';
  const result = await boundary.execute(ctx, tool, id, options.args ?? ARGS);
  await ctx.journal.flush();
  ctx.close();
  const record = typeof id === 'string' ? await store.get(ctx.runId, id) : null;
  return { result, record, journal, ctx };
}

const bigResult = fakeLogTool({
  project: () => ({
    evidenceStatus: 'EVIDENCE_FOUND',
    result: { scope: { query: 'x'.repeat(5000) }, events: [] },
    truncated: false,
  }),
});

/** Each way a call can end as an error observation, and the stable code it carries. */
const ERROR_CASES: {
  name: string;
  tool: FakeTool;
  toolCallId?: unknown;
  args?: unknown;
  answers?: StoreAnswer[];
  harnessEnv?: Record<string, string>;
  code: string;
  message?: RegExp;
  stored: boolean;
}[] = [
  {
    name: 'a missing tool_call_id',
    tool: fakeLogTool(),
    toolCallId: undefined,
    code: 'INVALID_TOOL_CALL_ID',
    stored: false,
  },
  {
    name: 'a malformed tool_call_id',
    tool: fakeLogTool(),
    toolCallId: 'bad id with spaces',
    code: 'INVALID_TOOL_CALL_ID',
    stored: false,
  },
  {
    name: 'a tool that is not read-only',
    tool: fakeLogTool({ readOnly: false as unknown as true }),
    code: 'TOOL_NOT_READ_ONLY',
    stored: true,
  },
  {
    name: 'arguments outside the schema',
    tool: fakeLogTool(),
    args: { query: '', count: -1 },
    code: 'INVALID_ARGUMENTS',
    message: /check query, count/,
    stored: true,
  },
  {
    name: "the tool's own ToolFailure",
    tool: fakeLogTool({
      failureCodes: ['SQL_NOT_ALLOWED'],
      execute: () => Promise.reject(new ToolFailure('SQL_NOT_ALLOWED', 'Only SELECT on allowed tables.')),
    }),
    code: 'SQL_NOT_ALLOWED',
    message: /^Only SELECT on allowed tables\.$/,
    stored: true,
  },
  {
    name: 'a ToolFailure with a code the tool does not declare (fail closed)',
    tool: fakeLogTool({
      failureCodes: ['SQL_NOT_ALLOWED'],
      execute: () => Promise.reject(new ToolFailure('MADE_UP_CODE', 'anything the tool says')),
    }),
    code: 'TOOL_FAILED',
    message: /^The tool failed\.$/,
    stored: true,
  },
  {
    name: 'any other error thrown by the tool',
    tool: fakeLogTool({ execute: () => Promise.reject(new TypeError('secret internals')) }),
    code: 'TOOL_FAILED',
    message: /^The tool failed\.$/,
    stored: true,
  },
  {
    name: 'a tool slower than its timeout',
    tool: slowTool(5_000, { aborted: false }),
    harnessEnv: { HARNESS_TOOL_CALL_TIMEOUT_MS: '100' },
    code: 'TOOL_TIMEOUT',
    stored: true,
  },
  {
    name: 'a projector that throws',
    tool: fakeLogTool({
      project: () => {
        throw new Error('bad raw');
      },
    }),
    code: 'PROJECTION_FAILED',
    stored: true,
  },
  {
    name: 'a projection over the agent-result cap',
    tool: bigResult,
    harnessEnv: { HARNESS_EVIDENCE_MAX_AGENT_RESULT_BYTES: '1024' },
    code: 'RESULT_TOO_LARGE',
    stored: true,
  },
  {
    name: 'a duplicate id (store: DUPLICATE)',
    tool: fakeLogTool(),
    answers: ['DUPLICATE'],
    code: 'DUPLICATE_TOOL_CALL_ID',
    stored: false,
  },
  {
    name: 'a record over the record cap (store: RECORD_TOO_LARGE)',
    tool: fakeLogTool(),
    answers: ['OK', 'RECORD_TOO_LARGE'],
    code: 'RESULT_TOO_LARGE',
    stored: true,
  },
  {
    name: "the run's evidence byte limit (store: RUN_LIMIT)",
    tool: fakeLogTool(),
    answers: ['OK', 'OK', 'RUN_LIMIT'],
    code: 'RUN_EVIDENCE_LIMIT',
    stored: true,
  },
  {
    name: 'Redis down at create',
    tool: fakeLogTool(),
    answers: ['UNAVAILABLE'],
    code: 'EVIDENCE_STORE_UNAVAILABLE',
    stored: false,
  },
  {
    name: 'a record gone between writes (store: MISSING)',
    tool: fakeLogTool(),
    answers: ['OK', 'MISSING'],
    code: 'EVIDENCE_STORE_UNAVAILABLE',
    stored: true,
  },
];

describe('ToolBoundary error → code', () => {
  it.each(ERROR_CASES)('$name → $code', async (c) => {
    const { result, record, journal } = await callOnce(c.tool, c);
    expect(result.isError).toBe(true);
    expect(result.agentResult).toMatchObject({
      evidence_status: 'ERROR',
      error_code: c.code,
      truncated: false,
    });
    expect(JSON.parse(result.content)).toEqual(result.agentResult);
    if (c.message) expect(result.agentResult.message).toMatch(c.message);
    expect(result.content).not.toContain('secret internals');
    expect(result.content).not.toContain('RAW-ONLY-MARKER');
    // The audit row and the timeline carry the same code.
    expect(journal!.invocations.map((row) => row.errorCode)).toEqual([c.code]);
    expect(journal!.events.map((event) => event.eventType)).toEqual(['TOOL_STARTED', 'TOOL_FINISHED']);
    expect(journal!.events[1].details).toMatchObject({ status: 'ERROR', error_code: c.code });
    if (c.stored) expect(record).toMatchObject({ status: 'ERROR', evidence_status: 'ERROR' });
    else expect(record).toBeNull();
  });

  it('a store failure while writing ERROR wins over the original code', async () => {
    const failing = fakeLogTool({ execute: () => Promise.reject(new Error('x')) });
    // create OK, then the ERROR update finds Redis down.
    const { result } = await callOnce(failing, { answers: ['OK', 'UNAVAILABLE'] });
    expect(result.agentResult.error_code).toBe('EVIDENCE_STORE_UNAVAILABLE');
  });

  it('keeps the raw response in the record when only the projection failed', async () => {
    const { record } = await callOnce(
      fakeLogTool({
        project: () => {
          throw new Error('bad');
        },
      }),
    );
    expect(record).toMatchObject({ error_code: 'PROJECTION_FAILED' });
    expect(record!.raw_response).toMatchObject({ secret_marker: 'RAW-ONLY-MARKER-7f3a' });
  });

  it('an INVALID_ARGUMENTS call never runs the tool', async () => {
    let ran = false;
    await callOnce(
      fakeLogTool({
        execute: () => {
          ran = true;
          return Promise.resolve({ lines: [], secret_marker: '' });
        },
      }),
      { args: { query: 1 } },
    );
    expect(ran).toBe(false);
  });
});

describe('ToolBoundary READY', () => {
  it.each([
    { count: 3, evidence: 'EVIDENCE_FOUND' },
    { count: 0, evidence: 'NO_EVIDENCE' },
  ])('$count lines → READY / $evidence, raw only in the record', async ({ count, evidence }) => {
    const { result, record, journal } = await callOnce(fakeLogTool(), { args: { query: 'q', count } });
    expect(result.isError).toBe(false);
    expect(result.agentResult).toMatchObject({
      evidence_status: evidence,
      tool_call_id: 'call_1',
      match_count: count,
    });
    expect(result.content).not.toContain('RAW-ONLY-MARKER');
    expect(record).toMatchObject({ status: 'READY', evidence_status: evidence, error_code: null });
    expect(record!.raw_response).toMatchObject({ secret_marker: 'RAW-ONLY-MARKER-7f3a' });
    expect(journal!.invocations[0]).toMatchObject({ status: 'READY', argSummary: { count } });
  });
});

describe('ToolBoundary pace', () => {
  it("runs no tool and opens no record while the run's pace holds it", async () => {
    const door = heldPace();
    const { ctx } = startUnitRun({ pace: door.pace });
    const { store, boundary } = setup();
    const tool = fakeLogTool();
    const call = boundary.execute(ctx, tool, 'call_1', ARGS);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.records.size).toBe(0);
    door.open();
    await expect(call).resolves.toMatchObject({ isError: false });
    expect(store.records.size).toBe(1);
    ctx.close();
  });
});

describe('ToolBoundary budget', () => {
  it('the call over the tool budget is BUDGET_EXHAUSTED and records the limit once', async () => {
    const { store: journal, ctx } = startUnitRun({ limits: { maxToolCalls: 1 } });
    const { boundary } = setup();
    const first = await boundary.execute(ctx, fakeLogTool(), 'call_1', ARGS);
    const second = await boundary.execute(ctx, fakeLogTool(), 'call_2', ARGS);
    await ctx.journal.flush();
    ctx.close();
    expect(first.isError).toBe(false);
    expect(second.agentResult.error_code).toBe('BUDGET_EXHAUSTED');
    expect(journal.batches.map((batch) => batch.budgetExhausted)).toContain('TOOL_CALLS');
    expect(journal.events.map((event) => event.eventType)).toContain('BUDGET_EXHAUSTED');
  });

  it.each([
    { name: 'an invalid id', toolCallId: 'bad id', args: ARGS },
    { name: 'invalid arguments', toolCallId: 'call_x', args: { query: 3 } },
  ])('a call refused for $name still costs one call', async ({ toolCallId, args }) => {
    const { ctx } = startUnitRun();
    const { boundary } = setup();
    await boundary.execute(ctx, fakeLogTool(), toolCallId, args);
    expect(ctx.budget.totals().toolCalls).toBe(1);
    ctx.close();
  });
});

describe('ToolBoundary run stops', () => {
  it('cancellation during the tool is recorded as CANCELLED, then ends the run', async () => {
    const client = new AbortController();
    const { ctx } = startUnitRun({ parentSignal: client.signal });
    const { boundary, store } = setup();
    const seen = { aborted: false };
    const call = boundary.execute(ctx, slowTool(5_000, seen), 'call_c', ARGS);
    setTimeout(() => client.abort(), 20);
    await expect(call).rejects.toBeInstanceOf(RunCancelled);
    expect(seen.aborted).toBe(true);
    expect(await store.get(ctx.runId, 'call_c')).toMatchObject({ status: 'ERROR', error_code: 'CANCELLED' });
    ctx.close();
  });

  it('a deadline that comes before the tool timeout is DEADLINE_EXCEEDED, then ends the run', async () => {
    const { ctx } = startUnitRun({ timeoutMs: 50 });
    const { boundary, store } = setup({ HARNESS_TOOL_CALL_TIMEOUT_MS: '20000' });
    await expect(
      boundary.execute(ctx, slowTool(5_000, { aborted: false }), 'call_d', ARGS),
    ).rejects.toBeInstanceOf(RunDeadlineExceeded);
    expect(await store.get(ctx.runId, 'call_d')).toMatchObject({ error_code: 'DEADLINE_EXCEEDED' });
    ctx.close();
  });

  // The rule, on a fake clock: the run's remaining time is set apart from its own deadline timer, so the
  // boundary's timer fires first and only the rule can make the outcome DEADLINE_EXCEEDED.
  it.each([
    ['remaining run time equal to the tool timeout', 300, 'DEADLINE_EXCEEDED'],
    ['remaining run time one ms over the tool timeout', 301, 'TOOL_TIMEOUT'],
  ] as const)('%s (run timeout %d ms) ends %s', async (_, runTimeoutMs, code) => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const { ctx } = startUnitRun({ timeoutMs: runTimeoutMs });
      // Date moves 200 ms; the run's deadline timer keeps its full delay, so it fires after the tool's timer.
      jest.setSystemTime(1_000_200);
      expect(ctx.remainingMs()).toBe(runTimeoutMs - 200);
      const { boundary, store } = setup({ HARNESS_TOOL_CALL_TIMEOUT_MS: '100' });
      const outcome = boundary.execute(ctx, slowTool(5_000, { aborted: false }), 'call_tie', ARGS).then(
        (result) => JSON.parse(result.content).error_code as string,
        (error: unknown) => (error instanceof RunDeadlineExceeded ? 'DEADLINE_EXCEEDED' : String(error)),
      );
      await jest.advanceTimersByTimeAsync(100);
      expect(ctx.signal.aborted).toBe(false);
      expect(await outcome).toBe(code);
      expect(await store.get(ctx.runId, 'call_tie')).toMatchObject({ error_code: code });
      ctx.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('a run already stopped runs nothing and stores nothing', async () => {
    const { ctx } = startUnitRun({ parentSignal: AbortSignal.abort() });
    const { boundary, store } = setup();
    await expect(boundary.execute(ctx, fakeLogTool(), 'call_e', ARGS)).rejects.toBeInstanceOf(RunCancelled);
    expect(store.records.size).toBe(0);
    ctx.close();
  });
});

describe('ToolBoundary refusals before anything runs', () => {
  it('an unknown tool is stored as ERROR / UNKNOWN_TOOL with a safe name and the known tools', async () => {
    const { ctx } = startUnitRun();
    const { boundary, store } = setup();
    const result = await boundary.rejectUnknownTool(ctx, 'drop<table>', 'call_u', {}, ['query_logs']);
    expect(result.agentResult).toMatchObject({ error_code: 'UNKNOWN_TOOL' });
    expect(result.agentResult.message).toBe('There is no tool named drop_table_; use one of query_logs.');
    expect(await store.get(ctx.runId, 'call_u')).toMatchObject({ status: 'ERROR', tool_name: 'drop_table_' });
    expect(ctx.budget.totals().toolCalls).toBe(1);
    ctx.close();
  });

  it('unreadable argument text is stored as INVALID_ARGUMENTS with the raw text as request', async () => {
    const { ctx } = startUnitRun();
    const { boundary, store } = setup();
    const result = await boundary.rejectMalformedArguments(ctx, 'query_logs', 'call_m', '{"query": ');
    expect(result.agentResult).toMatchObject({ error_code: 'INVALID_ARGUMENTS' });
    expect(result.agentResult.message).toMatch(/not a valid JSON object/);
    expect(await store.get(ctx.runId, 'call_m')).toMatchObject({ request: '{"query": ' });
    ctx.close();
  });

  it('a refusal with an invalid id stores nothing', async () => {
    const { ctx } = startUnitRun();
    const { boundary, store } = setup();
    const result = await boundary.rejectUnknownTool(ctx, 'nope', 42, {}, []);
    expect(result.agentResult.error_code).toBe('INVALID_TOOL_CALL_ID');
    expect(store.records.size).toBe(0);
    ctx.close();
  });
});
