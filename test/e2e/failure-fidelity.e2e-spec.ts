import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { FakePyRagServer } from '../support/fake-pyrag-server';
import { postChat, SseEvent } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_MYSQL, TEST_REDIS } from '../support/test-env';

/**
 * Issue 16: what the seed promises when things go wrong — tool errors never read as "nothing found",
 * per-role budgets, guard-phase failures ending in the fallback, persist-then-announce, malformed
 * tool-call arguments answered through the boundary, previous_turn, and the unified timeline.
 */
const stub = new StubLlmServer();
const pyrag = new FakePyRagServer();
const KEY_PREFIX = `e2e-fidelity-${randomUUID().slice(0, 8)}`;
let app: RunningApp;

beforeAll(async () => {
  app = await startApp({
    LLM_BASE_URL: await stub.start(),
    KNOWLEDGE_BACKEND: 'pyrag',
    PYRAG_BASE_URL: await pyrag.start(),
    PYRAG_TIMEOUT_MS: '400',
    HARNESS_AGENT_MAX_MODEL_CALLS: '3',
    HARNESS_AGENT_MAX_TOOL_CALLS: '3',
    HARNESS_AGENT_MAX_CALLS_PER_TOOL: '3',
    HARNESS_SEMANTIC_MAX_OUTPUT_TOKENS: '500',
    HARNESS_SEMANTIC_MAX_TOTAL_TOKENS: '1000',
    HARNESS_EVIDENCE_KEY_PREFIX: KEY_PREFIX,
  });
});
afterAll(async () => {
  await app?.close();
  await stub.stop();
  await pyrag.stop();
});
beforeEach(() => {
  stub.requests.length = 0;
});

async function sql<T extends RowDataPacket>(text: string, params: unknown[] = []): Promise<T[]> {
  const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
  try {
    return (await connection.query<T[]>(text, params))[0];
  } finally {
    await connection.end();
  }
}

const last = (events: SseEvent[]) => events.at(-1)?.data;
const beforeLast = (events: SseEvent[]) => events.at(-2)?.data;
const runIdOf = (events: SseEvent[]) => String(events[0].data.run_id);
const runRow = async (events: SseEvent[]) =>
  (await sql('SELECT * FROM diagnosis_run WHERE run_id = ?', [runIdOf(events)]))[0];

const logs = (id: string) => ({
  id,
  name: 'query_logs',
  arguments: { topic: 'APPLICATION', query: 'order-service HikariPool', lookback_minutes: 30 },
});
const hit = {
  evidence_status: 'evidence_found',
  evidence: [
    {
      document_id: 'doc-pool',
      source: 'runbooks/pool.md',
      title: 'Pool runbook',
      breadcrumb: 'Pool',
      content: 'HikariCP pool exhaustion makes payments time out.',
      score: 0.9,
    },
  ],
};

describe('1. a knowledge lookup that failed is never shown as "nothing found"', () => {
  it.each<[string, () => void]>([
    ['py-rag answers HTTP 500', () => pyrag.replies.push({ status: 500, body: { detail: 'boom' } })],
    ['py-rag is too slow', () => pyrag.replies.push({ delayMs: 1500, body: hit })],
  ])('%s: failure KNOWLEDGE_UNAVAILABLE, never the no-result answer', async (_name, arrange) => {
    arrange();
    stub.load({ roles: { 'intent-router': [{ content: 'KNOWLEDGE_QUERY' }] } });
    const response = await postChat(app.baseUrl, { query: 'What does ERR_TIMEOUT mean?' });
    expect(response.events.map((event) => event.event).slice(-2)).toEqual(['failure', 'done']);
    expect(beforeLast(response.events)).toMatchObject({ code: 'KNOWLEDGE_UNAVAILABLE' });
    expect(last(response.events)).toEqual({ outcome: 'FAILED' });
    expect(response.text).not.toContain('Nothing in the knowledge base');
    expect(await runRow(response.events)).toMatchObject({
      status: 'FAILED',
      error_code: 'KNOWLEDGE_UNAVAILABLE',
    });
    expect(stub.requestsFor('knowledge-answer')).toHaveLength(0);
  });

  it('searches a query of any length the chat accepts (no INVALID_ARGUMENTS at the lookup)', async () => {
    pyrag.requests.length = 0;
    pyrag.replies.push({ body: { evidence_status: 'no_evidence', evidence: [] } });
    stub.load({ roles: { 'intent-router': [{ content: 'KNOWLEDGE_QUERY' }] } });
    const query = `How do I read ERR_TIMEOUT? ${'context '.repeat(200)}`.trim();
    expect(query.length).toBeGreaterThan(1000);
    const response = await postChat(app.baseUrl, { query });
    expect(last(response.events)).toEqual({ outcome: 'SUCCESS' });
    expect(pyrag.requests).toHaveLength(1);
    expect((pyrag.requests[0].body as { query: string }).query).toBe(query);
  });
});

describe('2. budgets per role', () => {
  it('an agent that uses all its model calls still gets its draft reviewed and released', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [
          { turn: 0, content: '1. check logs', tool_calls: [logs('call_b1')] },
          { turn: 1, content: '', tool_calls: [logs('call_b2')] },
          { turn: 2, content: draftJson({ cite: ['call_b1'] }) },
        ],
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(beforeLast(response.events)).toMatchObject({ content_type: 'DIAGNOSIS_REPORT' });
    expect(last(response.events)).toEqual({ outcome: 'SUCCESS' });
    expect(await runRow(response.events)).toMatchObject({ status: 'SUCCESS', model_calls: 5 });
  });

  it('rejected tool calls count against the tool budget', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [
          {
            turn: 0,
            content: '1. check logs',
            tool_calls: [
              { id: 'call_u1', name: 'drop_database', arguments: {} },
              { id: 'call_u2', name: 'query_logs', arguments: { topic: 'NOPE' } },
              { id: 'bad id!', name: 'query_logs', arguments: {} },
            ],
          },
          { turn: 1, content: '', tool_calls: [logs('call_real')] },
          { turn: 2, content: draftJson({ cite: ['call_real'] }) },
        ],
        'evidence-repair': [{ content: draftJson({ cite: ['call_real'] }) }],
      },
    });
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    const third = stub.requestsFor('diagnosis-agent')[2];
    const results = (third.body.messages ?? []).filter((message) => message.role === 'tool');
    expect(results.map((message) => JSON.parse(String(message.content)).error_code)).toEqual([
      'UNKNOWN_TOOL',
      'INVALID_ARGUMENTS',
      'INVALID_TOOL_CALL_ID',
      'BUDGET_EXHAUSTED',
    ]);
    expect(last(response.events)).toEqual({ outcome: 'FALLBACK' });
    expect(await runRow(response.events)).toMatchObject({ tool_calls: 3 });
  });

  it('SemanticGuard has its own token budget: spending it ends in the fallback, not a failure', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'semantic-guard': [{ content: 'not json', usage: { prompt_tokens: 900, completion_tokens: 200 } }],
      },
    });
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(beforeLast(response.events)).toMatchObject({
      content_type: 'FALLBACK',
      payload: { type: 'SEMANTIC_UNAVAILABLE' },
    });
    expect(last(response.events)).toEqual({ outcome: 'FALLBACK' });
    expect(stub.requestsFor('semantic-guard')).toHaveLength(1);
    expect(await runRow(response.events)).toMatchObject({
      status: 'FALLBACK',
      fallback_reason: 'SEMANTIC_BUDGET_TOTAL_TOKENS',
    });
  });
});

describe('3. guard-phase technical failures end in the fallback', () => {
  it('a failing repair call gives EVIDENCE_VALIDATION_FAILED and done(FALLBACK), not FAILED', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson({ cite: ['call_invented'] })),
        'evidence-repair': [{ error: 500 }],
      },
    });
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(beforeLast(response.events)).toMatchObject({
      content_type: 'FALLBACK',
      payload: { type: 'EVIDENCE_VALIDATION_FAILED', conclusion: null },
    });
    expect(last(response.events)).toEqual({ outcome: 'FALLBACK' });
    expect(response.text).not.toContain('DRAFT-MARKER');
    expect(await runRow(response.events)).toMatchObject({
      status: 'FALLBACK',
      release_outcome: 'FALLBACK',
      fallback_reason: expect.stringMatching(/^REPAIR_/),
    });
  });
});

describe('4. persist, then announce', () => {
  it('a terminal state MySQL refuses to store ends in failure INTERNAL_ERROR, never the answer', async () => {
    const marker = `PERSIST-FAIL-${randomUUID()}`;
    const trigger = `fidelity_refuse_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    // A real database-level refusal at exactly the terminal update of this one run (matched by its query).
    await sql(
      `CREATE TRIGGER ${trigger} BEFORE UPDATE ON diagnosis_run FOR EACH ROW
       BEGIN
         IF NEW.status <> 'RUNNING' AND NEW.query LIKE '%${marker}%' THEN
           SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by test trigger';
         END IF;
       END`,
    );
    try {
      stub.load({
        roles: {
          'intent-router': [{ content: 'SYSTEM_CHAT' }],
          'system-chat': [{ content: 'ANSWER-MARKER I diagnose faults.' }],
        },
      });
      const response = await postChat(app.baseUrl, { query: `what can you do? ${marker}` });
      expect(response.events.map((event) => event.event)).toEqual([
        'metadata',
        'status',
        'status',
        'failure',
        'done',
      ]);
      expect(beforeLast(response.events)).toMatchObject({ code: 'INTERNAL_ERROR' });
      expect(last(response.events)).toEqual({ outcome: 'FAILED' });
      expect(response.text).not.toContain('ANSWER-MARKER');
      expect(response.text).not.toContain('refused by test trigger');
      expect(await runRow(response.events)).toMatchObject({ status: 'RUNNING' });
    } finally {
      await sql(`DROP TRIGGER IF EXISTS ${trigger}`);
    }
  });

  it('a follow-up sent right after done sees the stored turn', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }, { content: 'DIAGNOSIS' }],
        'diagnosis-agent': [...agentTurns(draftJson({ marker: 'FIRST' })), ...agentTurns(draftJson())],
        'semantic-guard': [SUPPORTED, SUPPORTED],
      },
    });
    const first = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect((await runRow(first.events)).status).toBe('SUCCESS');
    stub.requests.length = 0;
    await postChat(app.baseUrl, {
      session_id: String(first.events[0].data.session_id),
      query: 'and yesterday?',
    });
    const input = JSON.parse(String(stub.requestsFor('diagnosis-agent')[0].body.messages?.[1].content));
    expect(input.previous_turn.published_conclusion).toContain('FIRST');
  });
});

describe('5. malformed tool-call arguments reach the boundary', () => {
  it('are stored and audited as INVALID_ARGUMENTS, and the agent corrects itself', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [
          {
            turn: 0,
            content: '1. check logs',
            tool_calls: [{ id: 'call_bad_json', name: 'query_logs', arguments: '{"topic": "APPLICATION", ' }],
          },
          { turn: 1, content: '', tool_calls: [logs('call_fixed')] },
          { turn: 2, content: draftJson({ cite: ['call_fixed'] }) },
        ],
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(beforeLast(response.events)).toMatchObject({ content_type: 'DIAGNOSIS_REPORT' });
    const runId = runIdOf(response.events);

    const second = stub.requestsFor('diagnosis-agent')[1];
    const messages = second.body.messages ?? [];
    const assistant = messages.find((message) => message.role === 'assistant');
    expect((assistant?.tool_calls as { id: string }[] | undefined)?.map((call) => call.id)).toEqual([
      'call_bad_json',
    ]);
    const observation = messages.find((message) => message.role === 'tool');
    expect(observation?.tool_call_id).toBe('call_bad_json');
    expect(JSON.parse(String(observation?.content))).toMatchObject({
      evidence_status: 'ERROR',
      error_code: 'INVALID_ARGUMENTS',
    });

    const rows = await sql(
      'SELECT tool_call_id, tool_name, status, error_code FROM tool_invocation WHERE run_id = ? ORDER BY id',
      [runId],
    );
    expect(rows.map((row) => [row.tool_call_id, row.tool_name, row.status, row.error_code])).toEqual([
      ['call_bad_json', 'query_logs', 'ERROR', 'INVALID_ARGUMENTS'],
      ['call_fixed', 'query_logs', 'READY', null],
    ]);
    const redis = new Redis({ ...TEST_REDIS, lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await redis.connect();
      const stored = JSON.parse(String(await redis.get(`${KEY_PREFIX}:{${runId}}:call_bad_json`)));
      expect(stored).toMatchObject({
        status: 'ERROR',
        evidence_status: 'ERROR',
        error_code: 'INVALID_ARGUMENTS',
        request: '{"topic": "APPLICATION", ',
      });
    } finally {
      redis.disconnect();
    }
  });

  it('keeps a malformed call paired with its result next to a valid one', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [
          {
            turn: 0,
            content: '1. check logs',
            tool_calls: [logs('call_ok'), { id: 'call_broken', name: 'query_logs', arguments: '{oops' }],
          },
          { turn: 1, content: draftJson({ cite: ['call_ok'] }) },
        ],
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(last(response.events)).toEqual({ outcome: 'SUCCESS' });
    const messages = stub.requestsFor('diagnosis-agent')[1].body.messages ?? [];
    const assistant = messages.find((message) => message.role === 'assistant');
    expect((assistant?.tool_calls as { id: string }[] | undefined)?.map((call) => call.id)).toEqual([
      'call_ok',
      'call_broken',
    ]);
    expect(
      messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id),
    ).toEqual(['call_ok', 'call_broken']);
  });
});

describe('6. previous_turn is only the immediately previous completed turn', () => {
  it('is null when the previous turn was not a published diagnosis, even with an older one behind it', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson({ marker: 'OLDER' })),
        'semantic-guard': [SUPPORTED],
      },
    });
    const first = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(last(first.events)).toEqual({ outcome: 'SUCCESS' });
    const sessionId = String(first.events[0].data.session_id);

    pyrag.replies.push({ body: { evidence_status: 'no_evidence', evidence: [] } });
    stub.load({ roles: { 'intent-router': [{ content: 'KNOWLEDGE_QUERY' }] } });
    const knowledge = await postChat(app.baseUrl, {
      session_id: sessionId,
      query: 'What does ERR_TIMEOUT mean?',
    });
    expect(last(knowledge.events)).toEqual({ outcome: 'SUCCESS' });

    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'semantic-guard': [SUPPORTED],
      },
    });
    stub.requests.length = 0;
    await postChat(app.baseUrl, { session_id: sessionId, query: 'and the refund service?' });
    const input = JSON.parse(String(stub.requestsFor('diagnosis-agent')[0].body.messages?.[1].content));
    expect(input).toEqual({ query: 'and the refund service?', previous_turn: null });
  });
});

describe('7. the unified timeline', () => {
  it('shows model steps and tool calls (status and evidence status, no payload) in one timeline', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    const events = await sql(
      'SELECT phase, event_type, details FROM diagnosis_trace_event WHERE run_id = ? ORDER BY id',
      [runIdOf(response.events)],
    );
    const details = (row: RowDataPacket) =>
      (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as Record<string, unknown>;
    const steps = events
      .filter((row) => row.event_type === 'MODEL_STEP')
      .map((row) => [row.phase, details(row).role]);
    expect(steps).toEqual([
      ['ROUTING', 'intent-router'],
      ['AGENT', 'diagnosis-agent'],
      ['AGENT', 'diagnosis-agent'],
      ['SEMANTIC', 'semantic-guard'],
    ]);
    const tools = events.filter((row) => row.phase === 'TOOL' && row.event_type.startsWith('TOOL_'));
    expect(tools.map((row) => [row.event_type, details(row)])).toEqual([
      ['TOOL_STARTED', { tool: 'query_logs', tool_call_id: 'call_logs_1' }],
      [
        'TOOL_FINISHED',
        expect.objectContaining({
          tool: 'query_logs',
          tool_call_id: 'call_logs_1',
          status: 'READY',
          evidence_status: 'EVIDENCE_FOUND',
          error_code: null,
        }),
      ],
    ]);
    const order = events.map((row) => row.event_type);
    expect(order.indexOf('TOOL_STARTED')).toBeGreaterThan(order.indexOf('MODEL_STEP'));
    expect(JSON.stringify(events)).not.toMatch(/HikariPool-1|Connection is not available|REASONING-MARKER/);
  });
});
