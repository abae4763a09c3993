import Redis from 'ioredis';
import {
  CanonicalInvocation,
  InvocationStore,
  RunCancelled,
  RunDeadlineExceeded,
  ToolBoundary,
  ToolFailure,
} from '@app/harness';
import { RunRepository, ToolInvocationRepository } from '@app/trace';
import { createHarnessFixture, HarnessFixture, startTestRun } from '../support/harness-fixture';
import { fakeLogTool, slowTool } from '../support/fake-tools';
import { TEST_REDIS } from '../support/test-env';

const MARKER = 'RAW-ONLY-MARKER-7f3a';

describe('Harness tool boundary and Redis invocation store (real Redis and MySQL)', () => {
  let fixture: HarnessFixture;
  let boundary: ToolBoundary;
  let store: InvocationStore;
  let redis: Redis;

  beforeAll(async () => {
    fixture = await createHarnessFixture({
      harnessEnv: {
        HARNESS_EVIDENCE_MAX_RECORD_BYTES: String(64 * 1024),
        HARNESS_EVIDENCE_MAX_AGENT_RESULT_BYTES: String(4 * 1024),
        HARNESS_EVIDENCE_MAX_RUN_BYTES: String(256 * 1024),
        HARNESS_TOOL_CALL_TIMEOUT_MS: '20000',
      },
    });
    boundary = fixture.app.get(ToolBoundary);
    store = fixture.app.get(InvocationStore);
    redis = new Redis(TEST_REDIS);
  });

  afterAll(async () => {
    redis.disconnect();
    await fixture.close();
  });

  const rawRecord = async (runId: string, id: string) => {
    const text = await redis.get(store.key(runId, id));
    return text === null ? null : (JSON.parse(text) as CanonicalInvocation);
  };

  it('stores request, raw response and projection, and returns only the bounded agent_result', async () => {
    const ctx = await startTestRun(fixture);
    const result = await boundary.execute(ctx, fakeLogTool(), 'call_ok', { query: 'HikariPool', count: 3 });

    expect(result.isError).toBe(false);
    expect(JSON.parse(result.content)).toEqual({
      evidence_status: 'EVIDENCE_FOUND',
      tool_call_id: 'call_ok',
      scope: { query: 'HikariPool' },
      match_count: 3,
      returned_count: 3,
      events: ['HikariPool line 0', 'HikariPool line 1', 'HikariPool line 2'],
      truncated: false,
    });
    expect(result.content).not.toContain(MARKER);

    const record = await rawRecord(ctx.runId, 'call_ok');
    expect(record).toMatchObject({
      tool_call_id: 'call_ok',
      run_id: ctx.runId,
      tool_name: 'query_logs',
      request: { query: 'HikariPool', count: 3 },
      raw_response: { secret_marker: MARKER },
      status: 'READY',
      evidence_status: 'EVIDENCE_FOUND',
      error_code: null,
    });
    expect(record?.agent_result).toEqual(JSON.parse(result.content));
    expect(Date.parse(record!.ended_at!)).toBeGreaterThanOrEqual(Date.parse(record!.started_at));
    expect(await store.getReady(ctx.runId, 'call_ok')).toMatchObject({ status: 'READY' });

    const ttl = await redis.ttl(store.key(ctx.runId, 'call_ok'));
    expect(ttl).toBeGreaterThan(7200 - 10);
    expect(ttl).toBeLessThanOrEqual(7200);

    await ctx.journal.flush();
    const [row] = await fixture.app.get(ToolInvocationRepository).listForRun(ctx.runId);
    expect(row).toMatchObject({
      toolCallId: 'call_ok',
      status: 'READY',
      evidenceStatus: 'EVIDENCE_FOUND',
      argSummary: { count: 3 },
    });
    expect(row.rawBytes).toBeGreaterThan(0);
    expect(JSON.stringify(row)).not.toContain(MARKER);
    expect(JSON.stringify(row)).not.toContain('HikariPool');
    ctx.close();
  });

  it('marks an empty result NO_EVIDENCE and keeps its scope', async () => {
    const ctx = await startTestRun(fixture);
    const result = await boundary.execute(ctx, fakeLogTool(), 'call_empty', { query: 'nothing', count: 0 });
    expect(JSON.parse(result.content)).toMatchObject({
      evidence_status: 'NO_EVIDENCE',
      scope: { query: 'nothing' },
      match_count: 0,
    });
    expect(await store.getReady(ctx.runId, 'call_empty')).toMatchObject({ evidence_status: 'NO_EVIDENCE' });
    ctx.close();
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'c'.repeat(129)],
    ['illegal characters', 'call 1/../x'],
  ])('refuses a %s tool_call_id without running the tool or writing Redis', async (_name, id) => {
    const ctx = await startTestRun(fixture);
    let ran = false;
    const tool = fakeLogTool({ execute: async () => ((ran = true), { lines: [], secret_marker: '' }) });
    const result = await boundary.execute(ctx, tool, id, { query: 'q', count: 1 });
    expect(JSON.parse(result.content)).toMatchObject({
      evidence_status: 'ERROR',
      error_code: 'INVALID_TOOL_CALL_ID',
    });
    expect(ran).toBe(false);
    expect(await redis.keys(`${store.key(ctx.runId, '')}*`)).toEqual([]);
    await ctx.journal.flush();
    const rows = await fixture.app.get(ToolInvocationRepository).listForRun(ctx.runId);
    expect(rows).toEqual([expect.objectContaining({ toolCallId: null, errorCode: 'INVALID_TOOL_CALL_ID' })]);
    ctx.close();
  });

  it('never overwrites a record when the model repeats a tool_call_id, and keeps runs apart', async () => {
    const ctx = await startTestRun(fixture);
    await boundary.execute(ctx, fakeLogTool(), 'call_dup', { query: 'first', count: 1 });
    const before = await redis.get(store.key(ctx.runId, 'call_dup'));
    const second = await boundary.execute(ctx, fakeLogTool(), 'call_dup', { query: 'second', count: 2 });
    expect(JSON.parse(second.content)).toMatchObject({
      evidence_status: 'ERROR',
      error_code: 'DUPLICATE_TOOL_CALL_ID',
    });
    expect(await redis.get(store.key(ctx.runId, 'call_dup'))).toBe(before);

    const other = await startTestRun(fixture);
    const elsewhere = await boundary.execute(other, fakeLogTool(), 'call_dup', {
      query: 'other run',
      count: 1,
    });
    expect(elsewhere.isError).toBe(false);
    expect(await store.getReady(other.runId, 'call_dup')).toMatchObject({ request: { query: 'other run' } });
    expect((await store.getReady(ctx.runId, 'call_dup'))?.request).toEqual({ query: 'first', count: 1 });
    expect(await store.getReady(ctx.runId, 'call_never_made')).toBeNull();
    ctx.close();
    other.close();
  });

  it('never renews the TTL on reads or updates', async () => {
    const ctx = await startTestRun(fixture);
    await boundary.execute(ctx, fakeLogTool(), 'call_ttl', { query: 'q', count: 1 });
    const key = store.key(ctx.runId, 'call_ttl');
    const before = await redis.pttl(key);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await store.get(ctx.runId, 'call_ttl');
    await store.getReady(ctx.runId, 'call_ttl');
    const record = (await store.get(ctx.runId, 'call_ttl'))!;
    expect(await store.update({ ...record, ended_at: new Date().toISOString() })).toBe('OK');
    const after = await redis.pttl(key);
    expect(after).toBeLessThanOrEqual(before - 1000);
    expect(after).toBeGreaterThan(0);
    expect(await redis.ttl(store.runBytesKey(ctx.runId))).toBeGreaterThan(0);
    ctx.close();
  });

  it('turns a raw response over the record limit into ERROR/RESULT_TOO_LARGE without keeping it', async () => {
    const ctx = await startTestRun(fixture);
    const result = await boundary.execute(ctx, fakeLogTool(), 'call_big', {
      query: 'x'.repeat(20),
      count: 5000,
    });
    expect(JSON.parse(result.content)).toMatchObject({
      evidence_status: 'ERROR',
      error_code: 'RESULT_TOO_LARGE',
    });
    const record = await rawRecord(ctx.runId, 'call_big');
    expect(record).toMatchObject({
      status: 'ERROR',
      evidence_status: 'ERROR',
      error_code: 'RESULT_TOO_LARGE',
      raw_response: null,
    });
    expect(await store.getReady(ctx.runId, 'call_big')).toBeNull();
    ctx.close();
  });

  it('truncates an agent_result over its limit and flags it', async () => {
    const ctx = await startTestRun(fixture);
    const result = await boundary.execute(ctx, fakeLogTool(), 'call_wide', {
      query: 'y'.repeat(40),
      count: 400,
    });
    const agentResult = JSON.parse(result.content);
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(4 * 1024);
    expect(agentResult).toMatchObject({
      evidence_status: 'EVIDENCE_FOUND',
      truncated: true,
      match_count: 400,
    });
    expect(agentResult.returned_count).toBe(agentResult.events.length);
    expect(agentResult.events.length).toBeLessThan(400);
    expect((await rawRecord(ctx.runId, 'call_wide'))?.raw_response).toMatchObject({
      lines: expect.any(Array),
    });
    ctx.close();
  });

  it('stops storing evidence at the per-run byte limit', async () => {
    const ctx = await startTestRun(fixture);
    const codes: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const result = await boundary.execute(ctx, fakeLogTool(), `call_fill_${i}`, {
        query: 'z'.repeat(30),
        count: 600,
      });
      codes.push(JSON.parse(result.content).error_code ?? 'OK');
    }
    expect(codes).toContain('RUN_EVIDENCE_LIMIT');
    expect(codes.slice(0, codes.indexOf('RUN_EVIDENCE_LIMIT')).every((code) => code === 'OK')).toBe(true);
    expect(Number(await redis.get(store.runBytesKey(ctx.runId)))).toBeLessThanOrEqual(256 * 1024);
    ctx.close();
  });

  it('returns PROJECTION_FAILED, never the raw result, when the projector throws', async () => {
    const ctx = await startTestRun(fixture);
    const tool = fakeLogTool({
      project: () => {
        throw new Error(`cannot project ${MARKER}`);
      },
    });
    const result = await boundary.execute(ctx, tool, 'call_proj', { query: 'q', count: 2 });
    expect(JSON.parse(result.content)).toEqual({
      evidence_status: 'ERROR',
      tool_call_id: 'call_proj',
      error_code: 'PROJECTION_FAILED',
      message: 'The tool result could not be prepared.',
      truncated: false,
    });
    expect(result.content).not.toContain(MARKER);
    expect(await rawRecord(ctx.runId, 'call_proj')).toMatchObject({
      status: 'ERROR',
      error_code: 'PROJECTION_FAILED',
      raw_response: { secret_marker: MARKER },
    });
    ctx.close();
  });

  it.each([
    ['invalid arguments', fakeLogTool(), { query: '', count: -1 }, 'INVALID_ARGUMENTS'],
    [
      'a known tool failure',
      fakeLogTool({
        failureCodes: ['LOG_SOURCE_DOWN'],
        execute: () => Promise.reject(new ToolFailure('LOG_SOURCE_DOWN', 'Log source unavailable.')),
      }),
      { query: 'q', count: 1 },
      'LOG_SOURCE_DOWN',
    ],
    [
      'an unexpected tool error',
      fakeLogTool({ execute: () => Promise.reject(new Error(`boom ${MARKER}`)) }),
      { query: 'q', count: 1 },
      'TOOL_FAILED',
    ],
    [
      'a tool that is not read-only',
      { ...fakeLogTool(), readOnly: false as unknown as true },
      { query: 'q', count: 1 },
      'TOOL_NOT_READ_ONLY',
    ],
  ])('returns a safe Tool ERROR for %s', async (_name, tool, args, code) => {
    const ctx = await startTestRun(fixture);
    const result = await boundary.execute(ctx, tool, 'call_err', args);
    const agentResult = JSON.parse(result.content);
    expect(agentResult).toMatchObject({
      evidence_status: 'ERROR',
      error_code: code,
      tool_call_id: 'call_err',
    });
    expect(result.content).not.toContain(MARKER);
    expect(await rawRecord(ctx.runId, 'call_err')).toMatchObject({
      status: 'ERROR',
      evidence_status: 'ERROR',
      error_code: code,
    });
    expect(await store.getReady(ctx.runId, 'call_err')).toBeNull();
    ctx.close();
  });

  it('stops a tool at the per-tool budget and records the limit on the run', async () => {
    const ctx = await startTestRun(fixture, { limits: { maxCallsPerTool: 2 } });
    for (const id of ['call_b1', 'call_b2'])
      await boundary.execute(ctx, fakeLogTool(), id, { query: 'q', count: 1 });
    const third = await boundary.execute(ctx, fakeLogTool(), 'call_b3', { query: 'q', count: 1 });
    expect(JSON.parse(third.content)).toMatchObject({ error_code: 'BUDGET_EXHAUSTED' });
    await ctx.journal.flush();
    const run = await fixture.app.get(RunRepository).findRun(ctx.runId);
    expect(run?.budgetExhaustedReason).toBe('TOOL_CALLS_PER_TOOL');
    ctx.close();
  });

  it.each([
    ['client abort', RunCancelled, 'CANCELLED'],
    ['run deadline', RunDeadlineExceeded, 'DEADLINE_EXCEEDED'],
  ])('propagates a %s to a slow tool and ends the call', async (name, errorClass, code) => {
    const client = new AbortController();
    const ctx = await startTestRun(fixture, {
      parentSignal: client.signal,
      timeoutMs: name === 'run deadline' ? 100 : 30_000,
    });
    const seen: { aborted: boolean; reason?: unknown } = { aborted: false };
    const pending = boundary.execute(ctx, slowTool(10_000, seen), 'call_slow', { query: 'q', count: 1 });
    if (name === 'client abort') setTimeout(() => client.abort(), 100);
    await expect(pending).rejects.toBeInstanceOf(errorClass);
    expect(seen.aborted).toBe(true);
    // A cancelled run hands its own reason to the tool; at a deadline the tool's own timer may fire in the same tick.
    if (errorClass === RunCancelled) expect(seen.reason).toBeInstanceOf(RunCancelled);
    expect(await rawRecord(ctx.runId, 'call_slow')).toMatchObject({ status: 'ERROR', error_code: code });
    ctx.close();
  });
});

describe('Harness tool boundary without Redis', () => {
  let fixture: HarnessFixture;

  beforeAll(async () => {
    fixture = await createHarnessFixture({ redis: { port: 1, connectTimeoutMs: 200 } });
  });
  afterAll(() => fixture.close());

  it('does not run the tool and returns EVIDENCE_STORE_UNAVAILABLE, still auditing the call in MySQL', async () => {
    const ctx = await startTestRun(fixture);
    let ran = false;
    const tool = fakeLogTool({ execute: async () => ((ran = true), { lines: ['x'], secret_marker: '' }) });
    const result = await fixture.app
      .get(ToolBoundary)
      .execute(ctx, tool, 'call_noredis', { query: 'q', count: 1 });
    expect(JSON.parse(result.content)).toMatchObject({
      evidence_status: 'ERROR',
      error_code: 'EVIDENCE_STORE_UNAVAILABLE',
    });
    expect(ran).toBe(false);
    await expect(fixture.app.get(InvocationStore).getReady(ctx.runId, 'call_noredis')).rejects.toThrow(
      'evidence store unavailable',
    );
    await ctx.journal.flush();
    const rows = await fixture.app.get(ToolInvocationRepository).listForRun(ctx.runId);
    expect(rows).toEqual([
      expect.objectContaining({ toolCallId: 'call_noredis', errorCode: 'EVIDENCE_STORE_UNAVAILABLE' }),
    ]);
    ctx.close();
  });
});

describe('Harness tool boundary with a short tool timeout', () => {
  let fixture: HarnessFixture;

  beforeAll(async () => {
    fixture = await createHarnessFixture({ harnessEnv: { HARNESS_TOOL_CALL_TIMEOUT_MS: '300' } });
  });
  afterAll(() => fixture.close());

  it('returns TOOL_TIMEOUT for a tool past its timeout, aborting the tool', async () => {
    const ctx = await startTestRun(fixture);
    const seen: { aborted: boolean; reason?: unknown } = { aborted: false };
    const result = await fixture.app
      .get(ToolBoundary)
      .execute(ctx, slowTool(10_000, seen), 'call_timeout', { query: 'q', count: 1 });
    expect(JSON.parse(result.content)).toMatchObject({
      evidence_status: 'ERROR',
      error_code: 'TOOL_TIMEOUT',
    });
    expect(seen.aborted).toBe(true);
    expect(await fixture.app.get(InvocationStore).getReady(ctx.runId, 'call_timeout')).toBeNull();
    ctx.close();
  });
});
