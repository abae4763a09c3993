import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED, UNSUPPORTED } from '../support/diagnosis-scripts';
import { FakePyRagServer } from '../support/fake-pyrag-server';
import { postChat, SseEvent } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TcpProxy } from '../support/tcp-proxy';
import { adminFetch, TEST_MYSQL, TEST_REDIS } from '../support/test-env';

async function rows(sql: string, params: unknown[]): Promise<RowDataPacket[]> {
  const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
  try {
    return (await connection.query<RowDataPacket[]>(sql, params))[0];
  } finally {
    await connection.end();
  }
}

const runIdOf = (events: SseEvent[]) => String(events[0].data.run_id);
const contentOf = (events: SseEvent[]) => events.at(-2)?.data;
const doneOf = (events: SseEvent[]) => events.at(-1)?.data;
const detailsOf = (row: RowDataPacket) =>
  (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as Record<string, unknown>;

async function runRow(runId: string): Promise<RowDataPacket> {
  for (let i = 0; i < 100; i += 1) {
    const [run] = await rows('SELECT * FROM diagnosis_run WHERE run_id = ?', [runId]);
    if (run && run.status !== 'RUNNING') return run;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} never left RUNNING`);
}

async function timeline(runId: string): Promise<RowDataPacket[]> {
  return rows('SELECT phase, event_type, details FROM diagnosis_trace_event WHERE run_id = ? ORDER BY id', [
    runId,
  ]);
}

const logCall = (id: string, lookback: number) => ({
  id,
  name: 'query_logs',
  arguments: { topic: 'APPLICATION', query: 'order-service HikariPool', lookback_minutes: lookback },
});

describe('provider failure paths (real MariaDB, Redis behind a proxy the test can cut)', () => {
  const stub = new StubLlmServer();
  const redis = new TcpProxy(TEST_REDIS.port, TEST_REDIS.host);
  let app: RunningApp;
  let documentId: string;

  const ask = (query = 'order-123 payment times out') => postChat(app.baseUrl, { query });

  async function untilHealthy(): Promise<void> {
    for (let i = 0; i < 50 && (await fetch(`${app.baseUrl}/health`)).status !== 200; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
  }

  beforeAll(async () => {
    app = await startApp({
      LLM_BASE_URL: await stub.start(),
      REDIS_PORT: String(await redis.start()),
      REDIS_CONNECT_TIMEOUT_MS: '300',
    });
    const form = new FormData();
    form.append(
      'file',
      new Blob([
        '# Gateway error codes\n\n## ERR_GATEWAY_TIMEOUT\nThe gateway did not answer within 30 seconds.',
      ]),
      'gateway-codes.md',
    );
    form.append('title', 'Gateway error codes');
    const upload = await adminFetch(`${app.baseUrl}/api/documents/upload`, { method: 'POST', body: form });
    documentId = ((await upload.json()) as { document_id: string }).document_id;
  });
  afterAll(async () => {
    if (app && documentId)
      await adminFetch(`${app.baseUrl}/api/documents/${documentId}`, { method: 'DELETE' });
    await app?.close();
    await redis.cut();
    await stub.stop();
  });
  beforeEach(() => {
    stub.requests.length = 0;
  });

  describe('knowledge answers', () => {
    it('a reply that is not the expected JSON is the fixed fallback, never "not found"', async () => {
      stub.load({
        roles: {
          'intent-router': [{ content: 'KNOWLEDGE_QUERY' }],
          'knowledge-answer': [{ content: 'ERR_GATEWAY_TIMEOUT means the gateway took over 30 seconds.' }],
        },
      });
      const response = await ask('What does ERR_GATEWAY_TIMEOUT mean?');
      expect(
        JSON.parse(String(stub.requestsFor('knowledge-answer')[0].body.messages?.[1].content)),
      ).toMatchObject({
        evidence: [expect.objectContaining({ document_id: documentId })],
      });
      expect(contentOf(response.events)).toMatchObject({
        content_type: 'FALLBACK',
        payload: { type: 'KNOWLEDGE_UNVERIFIED', conclusion: null },
      });
      expect(doneOf(response.events)).toEqual({ outcome: 'FALLBACK' });
      expect(response.text).not.toContain('Nothing in the knowledge base');
      expect(response.text).not.toContain('took over 30 seconds');
      expect(stub.requestsFor('knowledge-guard')).toHaveLength(0);
      const run = await runRow(runIdOf(response.events));
      expect(run).toMatchObject({
        status: 'FALLBACK',
        release_outcome: 'FALLBACK',
        fallback_reason: 'KNOWLEDGE_ANSWER_INVALID',
      });
    });

    it('a KnowledgeGuard refusal is sent as the fallback content type', async () => {
      stub.load({
        roles: {
          'intent-router': [{ content: 'KNOWLEDGE_QUERY' }],
          'knowledge-answer': [
            {
              content: JSON.stringify({
                answer: 'ERR_GATEWAY_TIMEOUT: the gateway did not answer within 30 seconds.',
                references: [documentId],
                limitations: 'runbook only',
              }),
            },
          ],
          'knowledge-guard': [UNSUPPORTED],
        },
      });
      const response = await ask('What does ERR_GATEWAY_TIMEOUT mean?');
      expect(stub.requestsFor('knowledge-guard')).toHaveLength(1);
      expect(contentOf(response.events)).toMatchObject({
        content_type: 'FALLBACK',
        payload: { type: 'KNOWLEDGE_UNVERIFIED', message: expect.stringContaining('could not be verified') },
      });
      expect(doneOf(response.events)).toEqual({ outcome: 'FALLBACK' });
      expect(await runRow(runIdOf(response.events))).toMatchObject({
        fallback_reason: 'KNOWLEDGE_UNSUPPORTED',
      });
    });
  });

  describe('Redis outages', () => {
    afterEach(async () => {
      await redis.restore().catch(() => undefined);
      await untilHealthy();
    });

    it('Redis lost after the tools succeeded: EVIDENCE_STORE_UNAVAILABLE, and no repair call', async () => {
      const [plan, final] = agentTurns(draftJson());
      stub.load({
        roles: {
          'intent-router': [{ content: 'DIAGNOSIS' }],
          'diagnosis-agent': [plan, { ...final, delay_ms: 800 }],
          'evidence-repair': [{ content: draftJson() }],
          'semantic-guard': [SUPPORTED],
        },
      });
      const pending = ask();
      for (let i = 0; i < 100 && stub.requestsFor('diagnosis-agent').length < 2; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await redis.cut();
      const response = await pending;
      expect(contentOf(response.events)).toMatchObject({
        content_type: 'FALLBACK',
        payload: { type: 'EVIDENCE_VALIDATION_FAILED' },
      });
      expect(stub.requestsFor('evidence-repair')).toHaveLength(0);
      const runId = runIdOf(response.events);
      expect(await runRow(runId)).toMatchObject({
        status: 'FALLBACK',
        fallback_reason: 'EVIDENCE_STORE_UNAVAILABLE',
      });
      const [invocation] = await rows('SELECT status FROM tool_invocation WHERE run_id = ?', [runId]);
      expect(invocation.status).toBe('READY');
      const events = await timeline(runId);
      const checks = events.filter((row) => row.event_type === 'EVIDENCE_CHECKED').map(detailsOf);
      expect(checks).toEqual([
        expect.objectContaining({ attempt: 1, ok: false, error_code: 'EVIDENCE_STORE_UNAVAILABLE' }),
      ]);
      const fallback = events.find((row) => row.event_type === 'FALLBACK');
      expect(detailsOf(fallback!)).toEqual({
        type: 'EVIDENCE_VALIDATION_FAILED',
        reason: 'EVIDENCE_STORE_UNAVAILABLE',
      });
    });

    it('tool calls refused while Redis is down count in diagnosis_run.tool_calls', async () => {
      await redis.cut();
      const [plan, final] = agentTurns(draftJson());
      stub.load({
        roles: {
          'intent-router': [{ content: 'DIAGNOSIS' }],
          'diagnosis-agent': [
            { ...plan, tool_calls: [logCall('call_logs_1', 30), logCall('call_logs_2', 60)] },
            final,
          ],
          'semantic-guard': [SUPPORTED],
        },
      });
      const response = await ask();
      const runId = runIdOf(response.events);
      const run = await runRow(runId);
      const invocations = await rows('SELECT error_code FROM tool_invocation WHERE run_id = ?', [runId]);
      expect(invocations.map((row) => row.error_code)).toEqual([
        'EVIDENCE_STORE_UNAVAILABLE',
        'EVIDENCE_STORE_UNAVAILABLE',
      ]);
      expect(run.tool_calls).toBe(2);
    });
  });

  describe('tool call ids numbered per response (strict OpenAI rules)', () => {
    it('gives a reused id of a later response a run-unique form the model sees and cites', async () => {
      const [plan] = agentTurns(draftJson());
      stub.load({
        profile: 'openai',
        tool_call_ids: 'per-response',
        roles: {
          'intent-router': [{ content: 'DIAGNOSIS' }],
          'diagnosis-agent': [
            { ...plan, tool_calls: [logCall('ignored', 30)] },
            { content: 'one more look', tool_calls: [logCall('ignored', 60)] },
            { content: draftJson({ cite: ['call_0', 'call_0.2'] }) },
          ],
          'semantic-guard': [SUPPORTED],
        },
      });
      const response = await ask();
      expect(doneOf(response.events)).toEqual({ outcome: 'SUCCESS' });
      const runId = runIdOf(response.events);
      const invocations = await rows(
        'SELECT tool_call_id, status FROM tool_invocation WHERE run_id = ? ORDER BY id',
        [runId],
      );
      expect(invocations.map((row) => [row.tool_call_id, row.status])).toEqual([
        ['call_0', 'READY'],
        ['call_0.2', 'READY'],
      ]);
      const last = stub.requestsFor('diagnosis-agent')[2].body.messages ?? [];
      const assistantIds = last
        .filter((message) => message.role === 'assistant')
        .map((message) => (message.tool_calls as { id: string }[]).map((call) => call.id));
      expect(assistantIds).toEqual([['call_0'], ['call_0.2']]);
      expect(last.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual([
        'call_0',
        'call_0.2',
      ]);
      const rewritten = (await timeline(runId)).filter((row) => row.event_type === 'TOOL_CALL_ID_REWRITTEN');
      expect(rewritten.map(detailsOf)).toEqual([
        { tool: 'query_logs', provider_tool_call_id: 'call_0', tool_call_id: 'call_0.2' },
      ]);
    });

    it('answers a duplicate id inside one response once per tool call, so a strict provider accepts it', async () => {
      const [plan] = agentTurns(draftJson());
      stub.load({
        profile: 'openai',
        tool_call_ids: 'repeated',
        roles: {
          'intent-router': [{ content: 'DIAGNOSIS' }],
          'diagnosis-agent': [
            { ...plan, tool_calls: [logCall('a', 30), logCall('b', 60)] },
            { content: draftJson({ cite: ['call_0', 'call_0.2'] }) },
          ],
          'semantic-guard': [SUPPORTED],
        },
      });
      const response = await ask();
      expect(doneOf(response.events)).toEqual({ outcome: 'SUCCESS' });
      const second = stub.requestsFor('diagnosis-agent')[1].body.messages ?? [];
      const assistant = second.find((message) => message.role === 'assistant');
      expect((assistant?.tool_calls as { id: string }[]).map((call) => call.id)).toEqual([
        'call_0',
        'call_0.2',
      ]);
      expect(second.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual([
        'call_0',
        'call_0.2',
      ]);
      const invocations = await rows('SELECT tool_call_id, status FROM tool_invocation WHERE run_id = ?', [
        runIdOf(response.events),
      ]);
      expect(invocations.map((row) => [row.tool_call_id, row.status]).sort()).toEqual([
        ['call_0', 'READY'],
        ['call_0.2', 'READY'],
      ]);
    });
  });

  describe('evidence repair', () => {
    it('compares the repaired draft with what the agent wrote by parsed value', async () => {
      const [plan] = agentTurns(draftJson());
      stub.load({
        roles: {
          'intent-router': [{ content: 'DIAGNOSIS' }],
          // A placeholder brace in the prose makes the answer ambiguous: it goes to repair.
          'diagnosis-agent': [plan, { content: `已查询 {order_id} 的日志，结论如下：\n${draftJson()}` }],
          'evidence-repair': [{ content: draftJson() }],
          'semantic-guard': [SUPPORTED],
        },
      });
      const response = await ask();
      expect(stub.requestsFor('evidence-repair')).toHaveLength(1);
      expect(doneOf(response.events)).toEqual({ outcome: 'SUCCESS' });
      expect(contentOf(response.events)).toMatchObject({ content_type: 'DIAGNOSIS_REPORT' });
    });
  });
});

describe('a deadline or a cancellation while a tool runs', () => {
  const stub = new StubLlmServer();
  const pyrag = new FakePyRagServer();
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({
      LLM_BASE_URL: await stub.start(),
      KNOWLEDGE_BACKEND: 'pyrag',
      PYRAG_BASE_URL: await pyrag.start(),
      PYRAG_TIMEOUT_MS: '30000',
      HARNESS_TOOL_CALL_TIMEOUT_MS: '30000',
      HARNESS_RUN_TIMEOUT_MS: '3000',
      HARNESS_GUARD_TIME_RESERVE_MS: '1000',
    });
  });
  afterAll(async () => {
    await app?.close();
    await pyrag.stop();
    await stub.stop();
  });

  const slowLookup = () => {
    pyrag.replies.push({ delayMs: 10_000, body: { evidence_status: 'no_evidence', evidence: [] } });
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [
          {
            content: '1. read the runbook',
            tool_calls: [
              { id: 'call_kb_slow', name: 'lookup_knowledge', arguments: { query: 'payment timeout' } },
            ],
          },
        ],
      },
    });
  };

  /** The run's timeline once the interrupted call has recorded its end (old code wrote it after the run's end). */
  async function settledTimeline(runId: string): Promise<RowDataPacket[]> {
    await runRow(runId);
    for (let i = 0; i < 100; i += 1) {
      const events = await timeline(runId);
      if (events.some((row) => row.event_type === 'TOOL_FINISHED')) return events;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run ${runId} has no TOOL_FINISHED`);
  }

  it('on the deadline, TOOL_FINISHED is stored before RUN_FINISHED', async () => {
    slowLookup();
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(response.events.at(-2)?.data).toMatchObject({ code: 'RUN_TIMEOUT' });
    const events = await settledTimeline(runIdOf(response.events));
    const finished = events.find((row) => row.event_type === 'TOOL_FINISHED');
    expect(detailsOf(finished!)).toMatchObject({
      tool_call_id: 'call_kb_slow',
      error_code: 'DEADLINE_EXCEEDED',
    });
    expect(events.at(-1)?.event_type).toBe('RUN_FINISHED');
  });

  it('on a client disconnect, TOOL_FINISHED is stored before RUN_FINISHED', async () => {
    slowLookup();
    const response = await postChat(
      app.baseUrl,
      { query: 'order-123 payment times out' },
      { stopWhen: (events) => events.some((event) => event.data.code === 'TOOL_RUNNING') },
    );
    const runId = runIdOf(response.events);
    expect(await runRow(runId)).toMatchObject({ status: 'CANCELLED' });
    const events = await settledTimeline(runId);
    const finished = events.find((row) => row.event_type === 'TOOL_FINISHED');
    expect(detailsOf(finished!)).toMatchObject({ tool_call_id: 'call_kb_slow', error_code: 'CANCELLED' });
    expect(events.at(-1)?.event_type).toBe('RUN_FINISHED');
  });
});
