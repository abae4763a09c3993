import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RunningApp, startApp, useStubbedApp } from '../support/app-under-test';
import { MOCK_SCOPE_NOTE } from '@app/contracts';
import { agentTurns, draftJson, SUPPORTED, UNSUPPORTED } from '../support/diagnosis-scripts';
import { postChat, SseEvent } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { adminFetch, TEST_MYSQL } from '../support/test-env';

const suite = useStubbedApp({
  HARNESS_SEMANTIC_CALL_TIMEOUT_MS: '400',
  HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS: '2000',
  HARNESS_MODEL_CALL_TIMEOUT_MS: '3000',
});
const { stub } = suite;

async function query<T extends RowDataPacket>(sql: string, params: unknown[]): Promise<T[]> {
  const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
  try {
    const [rows] = await connection.query<T[]>(sql, params);
    return rows;
  } finally {
    await connection.end();
  }
}

const names = (events: SseEvent[]) => events.map((event) => event.event);
const statusCodes = (events: SseEvent[]) =>
  events.filter((event) => event.event === 'status').map((event) => event.data.code);
const runIdOf = (events: SseEvent[]) => String(events[0].data.run_id);

async function runRow(runId: string) {
  const [row] = await query<RowDataPacket>('SELECT * FROM diagnosis_run WHERE run_id = ?', [runId]);
  return row;
}

describe('POST /api/chat over real HTTP', () => {
  it('answers SYSTEM_CHAT with the fixed event order and one terminal state', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'SYSTEM_CHAT' }],
        'system-chat': [{ content: 'I diagnose faults.' }],
      },
    });
    const response = await postChat(suite.app.baseUrl, { query: '  你好，你能做什么？  ' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('connection')).toBe('keep-alive');
    // Set by the rate limit before the handler; the stream's headers are merged with them.
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(names(response.events)).toEqual(['metadata', 'status', 'status', 'content', 'done']);
    expect(statusCodes(response.events)).toEqual(['ROUTING', 'ANSWERING']);
    expect(response.events[3].data).toEqual({
      content_type: 'SYSTEM_ANSWER',
      payload: { answer: 'I diagnose faults.' },
    });
    expect(response.events[4].data).toEqual({ outcome: 'SUCCESS' });
    const row = await runRow(runIdOf(response.events));
    expect(row).toMatchObject({
      status: 'SUCCESS',
      intent: 'SYSTEM_CHAT',
      release_outcome: 'SUCCESS',
      query: '你好，你能做什么？',
      model_calls: 2,
    });
    const [router] = stub.requestsFor('intent-router');
    expect(JSON.parse(String(router.body.messages?.[1].content))).toEqual({
      query: '你好，你能做什么？',
      last_intent: null,
      last_user_query: null,
    });
  });

  it('runs a diagnosis end to end and releases the verified report with references', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(suite.app.baseUrl, {
      query: 'order-123 payment times out, find out why',
    });
    expect(names(response.events)).toEqual([
      ...['metadata'],
      ...Array(statusCodes(response.events).length).fill('status'),
      'content',
      'done',
    ]);
    expect(statusCodes(response.events)).toEqual([
      'ROUTING',
      'PLANNING',
      'DIAGNOSIS_PLAN',
      'TOOL_RUNNING',
      'TOOL_DONE',
      'EVIDENCE_VALIDATING',
      'SEMANTIC_VALIDATING',
      'RELEASING',
    ]);
    // Built from the tool calls (name + closed-set topic), never from the agent's own plan text.
    const plan = response.events.find((event) => event.data.code === 'DIAGNOSIS_PLAN');
    expect(plan?.data.message).toBe('排查计划：先查询 / plan: first query 日志 / logs (APPLICATION)');
    expect(response.text).not.toContain('check order-service logs for pool errors');
    const content = response.events.at(-2)!.data as {
      content_type: string;
      payload: {
        conclusion: { text: string };
        analysis: { reference_ids: number[] }[];
        references: { source_type: string; source: string }[];
      };
    };
    expect(content.content_type).toBe('DIAGNOSIS_REPORT');
    expect(content.payload.conclusion.text).toContain('HikariCP pool exhaustion');
    expect(content.payload.analysis[0].reference_ids).toEqual([1]);
    expect(content.payload.references).toEqual([
      expect.objectContaining({
        reference_id: 1,
        source_type: 'LOG',
        source: 'APPLICATION (MOCK)',
        demo: true,
      }),
    ]);
    expect(response.events.at(-1)!.data).toEqual({ outcome: 'SUCCESS' });
    expect(response.text).not.toMatch(/REASONING-MARKER|call_logs_1|<!-- role/);

    const runId = runIdOf(response.events);
    const row = await runRow(runId);
    expect(row).toMatchObject({
      status: 'SUCCESS',
      intent: 'DIAGNOSIS',
      release_outcome: 'SUCCESS',
      tool_calls: 1,
      model_calls: 4,
    });
    expect(row.conclusion).toContain('HikariCP pool exhaustion');
    expect(
      JSON.parse(
        typeof row.published_result === 'string'
          ? row.published_result
          : JSON.stringify(row.published_result),
      ),
    ).toMatchObject({
      user_query: 'order-123 payment times out, find out why',
      scope: `order-service, last 30 minutes, MOCK logs ${MOCK_SCOPE_NOTE}`,
    });
    for (const table of ['agent_step', 'tool_invocation', 'diagnosis_trace_event', 'agent_reasoning_audit']) {
      const rows = await query<RowDataPacket>(`SELECT COUNT(*) AS n FROM ${table} WHERE run_id = ?`, [runId]);
      expect(Number(rows[0].n)).toBeGreaterThan(0);
    }

    const [review] = stub.requestsFor('semantic-guard');
    const reviewText = JSON.stringify(review.body);
    expect(reviewText).not.toContain('call_logs_1');
    expect(review.body.tools).toBeUndefined();
    expect(review.body.messages).toHaveLength(2);
    expect(reviewText).not.toContain('You are the Diagnosis Agent');
    expect(JSON.parse(String(review.body.messages?.[1].content))).toMatchObject({
      query: 'order-123 payment times out, find out why',
      verified_evidence: [
        { analysis_id: 'a1', verified_evidence: [expect.objectContaining({ source_type: 'LOG' })] },
      ],
    });
  });

  it('repairs a fabricated citation once and then releases', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson({ cite: ['call_invented'] })),
        'evidence-repair': [{ content: draftJson() }],
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(suite.app.baseUrl, { query: 'why do payments time out?' });
    expect(statusCodes(response.events)).toContain('EVIDENCE_REPAIRING');
    expect(response.events.at(-2)!.data.content_type).toBe('DIAGNOSIS_REPORT');
    const [repair] = stub.requestsFor('evidence-repair');
    expect(repair.body.tools).toBeUndefined();
    expect(String(repair.body.messages?.[1].content)).toContain(
      'call_invented, which is not a tool call of this run',
    );
  });

  it.each([
    ['deepseek-thinking', draftJson()],
    // OpenAI-style models often wrap the answer in prose: the one fenced object is extracted
    ['openai', `Here is the report.\n\n\`\`\`json\n${draftJson()}\n\`\`\`\nTell me if you need more.`],
  ] as const)(
    'ends a diagnosis SUCCESS against the strict %s provider: reasoning passed back where returned, every tool call answered, max_tokens on every call',
    async (profile, finalAnswer) => {
      stub.load({
        profile,
        roles: {
          'intent-router': [{ content: 'DIAGNOSIS' }],
          'diagnosis-agent': agentTurns(finalAnswer),
          'semantic-guard': [SUPPORTED],
        },
      });
      const response = await postChat(suite.app.baseUrl, { query: 'order-123 payment times out' });
      expect(response.events.at(-1)!.data).toEqual({ outcome: 'SUCCESS' });
      expect(response.events.at(-2)!.data).toMatchObject({ content_type: 'DIAGNOSIS_REPORT' });

      const [first, second] = stub.requestsFor('diagnosis-agent');
      const assistant = (second.body.messages ?? []).filter((message) => message.role === 'assistant');
      const toolAnswers = (second.body.messages ?? []).filter((message) => message.role === 'tool');
      expect(assistant).toHaveLength(1);
      expect(toolAnswers.map((message) => message.tool_call_id)).toEqual(['call_logs_1']);
      if (profile === 'deepseek-thinking') {
        expect(assistant[0]).toMatchObject({
          reasoning_content: 'REASONING-MARKER the pool looks exhausted',
        });
      } else {
        expect(JSON.stringify(stub.requests.map((request) => request.body))).not.toContain(
          'reasoning_content',
        );
      }
      for (const request of stub.requests) expect(request.body.max_tokens).toEqual(expect.any(Number));

      // the agent is told exactly what it may query
      const tools = (first.body.tools ?? []) as { function: { name: string; description: string } }[];
      const mysql = tools.find((tool) => tool.function.name === 'query_mysql')!.function.description;
      expect(mysql).toContain(
        'order_db.biz_order(amount, created_at, order_id, payment_status, updated_at, user_id)',
      );
      expect(mysql).toContain('order_db.payment_record(');
      const logs = tools.find((tool) => tool.function.name === 'query_logs')!.function.description;
      expect(logs).toContain('Topics: APPLICATION, ACCESS, DATABASE.');
    },
  );

  it.each([
    [
      'the repair fails too',
      {
        'evidence-repair': [{ content: draftJson({ cite: ['call_still_invented'] }) }],
        'semantic-guard': [SUPPORTED],
      },
      draftJson({ cite: ['call_invented'] }),
      'EVIDENCE_VALIDATION_FAILED',
    ],
    [
      'SemanticGuard says UNSUPPORTED',
      { 'semantic-guard': [UNSUPPORTED] },
      draftJson(),
      'SEMANTIC_UNSUPPORTED',
    ],
    [
      'SemanticGuard times out twice',
      {
        'semantic-guard': [
          { delay_ms: 2000, content: '{}' },
          { delay_ms: 2000, content: '{}' },
        ],
      },
      draftJson(),
      'SEMANTIC_UNAVAILABLE',
    ],
    [
      'SemanticGuard answers garbage twice',
      { 'semantic-guard': [{ content: 'looks fine' }, { content: '{"verdict":"MAYBE"}' }] },
      draftJson(),
      'SEMANTIC_UNAVAILABLE',
    ],
  ])('falls back when %s, never releasing draft text', async (_name, roles, draft, type) => {
    stub.load({
      roles: { 'intent-router': [{ content: 'DIAGNOSIS' }], 'diagnosis-agent': agentTurns(draft), ...roles },
    });
    const response = await postChat(suite.app.baseUrl, { query: 'order-123 payment times out' });
    expect(names(response.events).slice(-2)).toEqual(['content', 'done']);
    const content = response.events.at(-2)!.data as {
      content_type: string;
      payload: { type: string; conclusion: null; verified_sources: unknown[] };
    };
    expect(content).toMatchObject({ content_type: 'FALLBACK', payload: { type, conclusion: null } });
    if (type === 'EVIDENCE_VALIDATION_FAILED') expect(content.payload.verified_sources).toEqual([]);
    else expect(content.payload.verified_sources).toEqual([expect.objectContaining({ source_type: 'LOG' })]);
    expect(response.events.at(-1)!.data).toEqual({ outcome: 'FALLBACK' });
    expect(response.text).not.toContain('DRAFT-MARKER');
    expect(await runRow(runIdOf(response.events))).toMatchObject({
      status: 'FALLBACK',
      release_outcome: 'FALLBACK',
      published_result: null,
      conclusion: null,
    });
  });

  it('fails with ROUTING_UNAVAILABLE after the router retry, never defaulting to DIAGNOSIS', async () => {
    stub.load({ roles: { 'intent-router': [{ error: 500 }, { content: 'PROBABLY_DIAGNOSIS' }] } });
    const response = await postChat(suite.app.baseUrl, { query: 'order-123 payment times out' });
    expect(names(response.events)).toEqual(['metadata', 'status', 'failure', 'done']);
    expect(response.events[2].data).toMatchObject({ code: 'ROUTING_UNAVAILABLE' });
    expect(response.events[3].data).toEqual({ outcome: 'FAILED' });
    expect(stub.requestsFor('diagnosis-agent')).toHaveLength(0);
    expect(await runRow(runIdOf(response.events))).toMatchObject({
      status: 'FAILED',
      error_code: 'ROUTING_UNAVAILABLE',
    });
    const attempts = await query<RowDataPacket>(
      "SELECT details FROM diagnosis_trace_event WHERE run_id = ? AND event_type = 'ATTEMPT'",
      [runIdOf(response.events)],
    );
    expect(attempts).toHaveLength(2);
  });

  it('gives a follow-up only the immediately previous turn, and only when it was released', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson({ marker: 'FIRST' })),
        'semantic-guard': [SUPPORTED],
      },
    });
    const first = await postChat(suite.app.baseUrl, { query: 'order-123 payment times out' });
    const sessionId = String(first.events[0].data.session_id);

    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson({ marker: 'SECOND' })),
        'semantic-guard': [UNSUPPORTED],
      },
    });
    stub.requests.length = 0;
    const second = await postChat(suite.app.baseUrl, {
      session_id: sessionId,
      query: 'and the refund service?',
    });
    expect(second.events[0].data.session_id).toBe(sessionId);
    const secondInput = JSON.parse(String(stub.requestsFor('diagnosis-agent')[0].body.messages?.[1].content));
    expect(secondInput).toEqual({
      query: 'and the refund service?',
      previous_turn: {
        user_query: 'order-123 payment times out',
        published_conclusion: expect.stringContaining('FIRST payment timeouts'),
        scope: `order-service, last 30 minutes, MOCK logs ${MOCK_SCOPE_NOTE}`,
        limitations: ['no slow query log'],
        source_documents: [],
      },
    });
    const [router] = stub.requestsFor('intent-router');
    expect(JSON.parse(String(router.body.messages?.[1].content))).toEqual({
      query: 'and the refund service?',
      last_intent: 'DIAGNOSIS',
      last_user_query: 'order-123 payment times out',
    });

    stub.requests.length = 0;
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'semantic-guard': [SUPPORTED],
      },
    });
    await postChat(suite.app.baseUrl, { session_id: sessionId, query: 'third question' });
    // The immediately previous turn (SECOND) was a fallback: nothing safely published, so null — the
    // older released FIRST behind it is not used.
    const thirdInput = JSON.parse(String(stub.requestsFor('diagnosis-agent')[0].body.messages?.[1].content));
    expect(thirdInput.previous_turn).toBeNull();
  });

  it('cancels the run when the client disconnects, sending nothing more', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [{ delay_ms: 5000, content: 'late' }],
      },
    });
    const client = new AbortController();
    const watcher = setInterval(() => {
      if (stub.requestsFor('diagnosis-agent').length > 0) client.abort();
    }, 20);
    const response = await postChat(
      suite.app.baseUrl,
      { query: 'order-123 payment times out' },
      { signal: client.signal },
    );
    clearInterval(watcher);
    expect(names(response.events)).not.toContain('done');
    const runId = runIdOf(response.events);
    let row = await runRow(runId);
    for (let i = 0; i < 40 && row.status === 'RUNNING'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      row = await runRow(runId);
    }
    expect(row).toMatchObject({
      status: 'CANCELLED',
      release_outcome: 'CANCELLED',
      error_code: 'CLIENT_DISCONNECTED',
    });
    // The graph rejects as soon as the signal aborts; the aborted model call records its step right after.
    let steps: RowDataPacket[] = [];
    for (let i = 0; i < 40 && steps.length === 0; i += 1) {
      steps = await query<RowDataPacket>(
        "SELECT status, error_code FROM agent_step WHERE run_id = ? AND role = 'diagnosis-agent'",
        [runId],
      );
      if (steps.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(steps).toEqual([expect.objectContaining({ status: 'ERROR', error_code: 'CANCELLED' })]);
  });

  it.each([
    [{}, 'query must be 1 to 4000 characters after trimming'],
    [{ query: '   ' }, 'query must be 1 to 4000 characters after trimming'],
    [{ query: 'x'.repeat(4001) }, 'query must be 1 to 4000 characters after trimming'],
    [{ query: 'hi', session_id: '../etc' }, 'session_id must be 8-64 characters'],
    [{ query: 'hi', mode: 'fast' }, 'property mode should not exist'],
    [{ query: 42 }, 'query must be a string'],
  ])('refuses %p with HTTP 400 before any stream', async (body, message) => {
    const response = await postChat(suite.app.baseUrl, body);
    expect(response.status).toBe(400);
    expect(response.events).toEqual([]);
    expect(JSON.stringify(response.json)).toContain(message);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('POST /api/chat at capacity', () => {
  let small: RunningApp;
  const slowStub = new StubLlmServer();

  beforeAll(async () => {
    const baseUrl = await slowStub.start();
    small = await startApp({
      LLM_BASE_URL: baseUrl,
      CHAT_MAX_IN_FLIGHT: '1',
      CHAT_MAX_QUEUE: '0',
      CHAT_RETRY_AFTER_SECONDS: '7',
      CHAT_HEARTBEAT_MS: '1000',
    });
  });
  afterAll(async () => {
    await small?.close();
    await slowStub.stop();
  });

  it('answers 503 with Retry-After while the only slot is busy', async () => {
    slowStub.load({
      roles: {
        'intent-router': [{ delay_ms: 2000, content: 'SYSTEM_CHAT' }],
        'system-chat': [{ content: 'ok' }],
      },
    });
    const busy = postChat(small.baseUrl, { query: 'hello' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const refused = await postChat(small.baseUrl, { query: 'hello again' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(refused.events).toEqual([]);
    expect((await busy).events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
  });

  it('keeps a slow stream alive with heartbeat comments between its events', async () => {
    slowStub.load({
      roles: {
        'intent-router': [{ delay_ms: 2500, content: 'SYSTEM_CHAT' }],
        'system-chat': [{ content: 'ok' }],
      },
    });
    const response = await postChat(small.baseUrl, { query: 'hello' });
    expect(names(response.events)).toEqual(['metadata', 'status', 'status', 'content', 'done']);
    // The router takes 2.5 heartbeat intervals: comments arrive after metadata, before the answer.
    const heartbeat = response.text.indexOf(': heartbeat\n\n');
    expect(heartbeat).toBeGreaterThan(response.text.indexOf('event: metadata'));
    expect(heartbeat).toBeLessThan(response.text.indexOf('event: content'));
  });
});

describe('POST /api/chat KNOWLEDGE_QUERY', () => {
  it('answers from one lookup_knowledge, keeping only references that were retrieved', async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob(['# Payment error codes\n\n## ERR_TIMEOUT\nThe gateway did not answer within 30 seconds.']),
      'codes.md',
    );
    form.append('title', 'Payment error codes');
    const uploaded = (await (
      await adminFetch(`${suite.app.baseUrl}/api/documents/upload`, { method: 'POST', body: form })
    ).json()) as { document_id: string };
    stub.load({
      roles: {
        'intent-router': [{ content: 'KNOWLEDGE_QUERY' }],
        'knowledge-answer': [
          {
            content: JSON.stringify({
              answer: 'ERR_TIMEOUT means no answer within 30 s.',
              references: [uploaded.document_id, 'doc-invented'],
              limitations: 'runbook only',
            }),
          },
        ],
        'knowledge-guard': [SUPPORTED],
      },
    });
    const response = await postChat(suite.app.baseUrl, { query: 'What does ERR_TIMEOUT mean?' });
    expect(statusCodes(response.events)).toEqual([
      'ROUTING',
      'KNOWLEDGE_SEARCHING',
      'ANSWERING',
      'SEMANTIC_VALIDATING',
    ]);
    expect(response.events.at(-2)!.data).toMatchObject({
      content_type: 'KNOWLEDGE_ANSWER',
      payload: {
        answer: 'ERR_TIMEOUT means no answer within 30 s.',
        references: [
          expect.objectContaining({ document_id: uploaded.document_id, title: 'Payment error codes' }),
        ],
        limitations: 'runbook only',
      },
    });
    const [answerRequest] = stub.requestsFor('knowledge-answer');
    expect(answerRequest.body.tools).toBeUndefined();
    expect(JSON.parse(String(answerRequest.body.messages?.[1].content)).query).toBe(
      'What does ERR_TIMEOUT mean?',
    );
    const invocations = await query<RowDataPacket>('SELECT tool_name FROM tool_invocation WHERE run_id = ?', [
      runIdOf(response.events),
    ]);
    expect(invocations.map((row) => row.tool_name)).toEqual(['lookup_knowledge']);
    await adminFetch(`${suite.app.baseUrl}/api/documents/${uploaded.document_id}`, { method: 'DELETE' });
  });

  it('gives the safe "not found" answer when the answer cites nothing retrieved', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'KNOWLEDGE_QUERY' }],
        'knowledge-answer': [{ content: '{"answer":"made up","references":["doc-x"],"limitations":""}' }],
      },
    });
    const response = await postChat(suite.app.baseUrl, { query: 'How do I rotate the kafka certificates?' });
    expect(response.events.at(-2)!.data).toMatchObject({
      content_type: 'KNOWLEDGE_ANSWER',
      payload: {
        answer: expect.stringContaining('Nothing in the knowledge base answers this question'),
        references: [],
      },
    });
    expect(response.text).not.toContain('made up');
  });
});
