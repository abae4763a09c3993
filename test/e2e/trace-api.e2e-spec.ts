import { createCipheriv, randomBytes } from 'node:crypto';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RetentionService } from '@app/trace';
import { TIMELINE_EVENTS, TimelinePhase } from '../../libs/trace/src/repositories/run-journal';
import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_KEYS, TEST_MYSQL } from '../support/test-env';

/** The session's owner: it chats and reads its own traces. */
const OWNER = TEST_KEYS.sessionOwner;
/** A trace_reader key that did not create the session. */
const READER = TEST_KEYS.traceReader;
const AUDITOR = TEST_KEYS.auditor;
const AUDITOR_ONLY = TEST_KEYS.auditorOnly;
const CHAT_ONLY = TEST_KEYS.chat;

describe('trace and reasoning-audit APIs', () => {
  const stub = new StubLlmServer();
  let app: RunningApp;
  let sessionId: string;
  let runId: string;
  let streamText: string;

  const get = async (path: string, key?: string) => {
    const response = await fetch(`${app.baseUrl}${path}`, { headers: key ? { 'x-api-key': key } : {} });
    return { status: response.status, text: await response.text() };
  };

  beforeAll(async () => {
    app = await startApp({ LLM_BASE_URL: await stub.start() });
    const [plan, final] = agentTurns(draftJson({ marker: 'RELEASED' }));
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [
          { ...plan, reasoning_content: 'REASONING-MARKER-7c1 thinking about pools' },
          final,
        ],
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' }, { apiKey: OWNER });
    streamText = response.text;
    sessionId = String(response.events[0].data.session_id);
    runId = String(response.events[0].data.run_id);
  });
  afterAll(async () => {
    await app?.close();
    await stub.stop();
  });

  it('returns the run as the stream showed it, with bounded metadata only', async () => {
    const response = await get(`/api/diagnosis/${sessionId}/trace?runId=${runId}`, OWNER);
    expect(response.status).toBe(200);
    const trace = JSON.parse(response.text);
    expect(trace.run).toMatchObject({
      run_id: runId,
      status: 'SUCCESS',
      release_outcome: 'SUCCESS',
      intent: 'DIAGNOSIS',
      budget: { model_calls: 4, tool_calls: 1 },
    });
    expect(streamText).toContain(`"outcome":"SUCCESS"`);
    expect(trace.tool_invocations).toEqual([
      expect.objectContaining({
        tool_call_id: 'call_logs_1',
        tool_name: 'query_logs',
        status: 'READY',
        evidence_status: 'EVIDENCE_FOUND',
      }),
    ]);
    expect(trace.steps.map((step: { role: string }) => step.role)).toEqual([
      'intent-router',
      'diagnosis-agent',
      'diagnosis-agent',
      'semantic-guard',
    ]);
    expect(trace.timeline.map((event: { event_type: string }) => event.event_type)).toEqual(
      expect.arrayContaining([
        'RUN_STARTED',
        'ROUTED',
        'EVIDENCE_CHECKED',
        'SEMANTIC_VERDICT',
        'RELEASED',
        'RUN_FINISHED',
      ]),
    );
    // Every stored event is one of its phase's closed set (what the OpenAPI document publishes).
    for (const event of trace.timeline as { phase: TimelinePhase; event_type: string }[]) {
      expect(TIMELINE_EVENTS[event.phase] as readonly string[]).toContain(event.event_type);
    }
    expect(response.text).not.toMatch(
      /REASONING-MARKER|HikariPool-1 - Connection|evidence supports the analysis|1\. check order-service logs/,
    );
  });

  it('lists the session’s runs newest first, paginated', async () => {
    const trace = JSON.parse((await get(`/api/diagnosis/${sessionId}/trace?limit=5`, OWNER)).text);
    expect(trace).toMatchObject({
      session: { session_id: sessionId },
      runs: [expect.objectContaining({ run_id: runId })],
      limit: 5,
      next_cursor: null,
    });
    expect((await get(`/api/diagnosis/${sessionId}/trace?limit=0`, OWNER)).status).toBe(400);
  });

  it('shows provider reasoning and assistant text only to an auditor, stored encrypted', async () => {
    const response = await get(`/api/diagnosis/${sessionId}/trace/reasoning?runId=${runId}`, AUDITOR);
    expect(response.status).toBe(200);
    const audit = JSON.parse(response.text);
    expect(audit.steps[1]).toMatchObject({
      role: 'diagnosis-agent',
      content_source: 'PROVIDER_REASONING',
      reasoning_content: 'REASONING-MARKER-7c1 thinking about pools',
    });
    expect(audit.steps[1].assistant_text).toContain('tool_call query_logs');
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      const [rows] = await connection.query<RowDataPacket[]>(
        'SELECT reasoning_content, assistant_text, encryption_key_id FROM agent_reasoning_audit WHERE run_id = ?',
        [runId],
      );
      expect(rows.length).toBe(4);
      for (const row of rows) expect(row.encryption_key_id).toBe('e2e');
      expect(JSON.stringify(rows)).not.toContain('REASONING-MARKER');
      expect(JSON.stringify(rows)).not.toContain('tool_call query_logs');
    } finally {
      await connection.end();
    }
  });

  it.each([
    ['no key', `/trace?runId=RUN`, undefined, 401],
    ['an unknown key', `/trace?runId=RUN`, 'not-a-valid-key-at-all', 401],
    ['a chat-only key', `/trace?runId=RUN`, CHAT_ONLY, 403],
    ['no key for reasoning', `/trace/reasoning?runId=RUN`, undefined, 401],
    ['a trace_reader key for reasoning', `/trace/reasoning?runId=RUN`, READER, 403],
    ['a missing runId for reasoning', `/trace/reasoning`, AUDITOR, 400],
    ['a run of another session', `/trace/reasoning?runId=RUN`, AUDITOR, 404],
    ['an unknown run', `/trace?runId=no-such-run`, OWNER, 404],
    ['a trace_reader key that did not create the session', `/trace?runId=RUN`, READER, 404],
    ['a trace_reader key that did not create the session, listing', `/trace`, READER, 404],
  ])('answers %s with %s', async (name, path, key, status) => {
    const session = name === 'a run of another session' ? 'someone-elses-session' : sessionId;
    const response = await get(`/api/diagnosis/${session}${path.replace('RUN', runId)}`, key);
    expect(response.status).toBe(status);
    expect(response.text).not.toContain('REASONING-MARKER');
  });

  it('never opens a reasoning ciphertext copied into another row: that row reads UNDECRYPTABLE', async () => {
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      const [rows] = await connection.query<RowDataPacket[]>(
        'SELECT step_index, reasoning_content FROM agent_reasoning_audit WHERE run_id = ? ORDER BY step_index',
        [runId],
      );
      // Step 1 is the agent's planning step, holding REASONING-MARKER; step 0 (the router) gets its value.
      const [target, source] = rows;
      await connection.query(
        'UPDATE agent_reasoning_audit SET reasoning_content = ? WHERE run_id = ? AND step_index = ?',
        [source.reasoning_content, runId, target.step_index],
      );
      const response = await get(`/api/diagnosis/${sessionId}/trace/reasoning?runId=${runId}`, AUDITOR);
      expect(response.status).toBe(200);
      const audit = JSON.parse(response.text);
      const copied = audit.steps.find(
        (step: { step_index: number }) => step.step_index === target.step_index,
      );
      expect(copied).toMatchObject({
        content_source: 'UNDECRYPTABLE',
        reasoning_content: null,
        assistant_text: null,
      });
      const original = audit.steps.find(
        (step: { step_index: number }) => step.step_index === source.step_index,
      );
      expect(original.reasoning_content).toBe('REASONING-MARKER-7c1 thinking about pools');
      expect(response.text.match(/REASONING-MARKER/g)).toHaveLength(1);
    } finally {
      await connection.end();
    }
  });

  it('never serves a relabelled audit row under its new label, and still reads a1 rows', async () => {
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      const [rows] = await connection.query<RowDataPacket[]>(
        'SELECT step_index, role, content_source FROM agent_reasoning_audit WHERE run_id = ? AND assistant_text IS NOT NULL ORDER BY step_index',
        [runId],
      );
      // Written by the run (sealed as a2): the agent's final step gets another content source, the
      // semantic guard's step is passed off as the diagnosis agent's.
      const agentStep = rows.filter((row) => row.role === 'diagnosis-agent').at(-1)!;
      const guardStep = rows.find((row) => row.role === 'semantic-guard')!;
      const forged =
        agentStep.content_source === 'PROVIDER_REASONING' ? 'ASSISTANT_TEXT_ONLY' : 'PROVIDER_REASONING';
      await connection.query(
        'UPDATE agent_reasoning_audit SET content_source = ? WHERE run_id = ? AND step_index = ?',
        [forged, runId, agentStep.step_index],
      );
      await connection.query(
        "UPDATE agent_reasoning_audit SET role = 'diagnosis-agent' WHERE run_id = ? AND step_index = ?",
        [runId, guardStep.step_index],
      );
      // A row sealed before role and content source were bound (`a1:`), with the configured key.
      const [keyId, base64Key] = String(process.env.AUDIT_ENCRYPTION_KEYS).split(':');
      const a1 = (text: string, column: string) =>
        a1Seal(Buffer.from(base64Key, 'base64'), text, [runId, 9, column]);
      await connection.query(
        "INSERT INTO agent_reasoning_audit (run_id, step_index, role, content_source, encryption_key_id, reasoning_content, assistant_text) VALUES (?, 9, 'diagnosis-agent', 'PROVIDER_REASONING', ?, ?, ?)",
        [runId, keyId, a1('A1-REASONING-MARKER', 'reasoning_content'), a1('a1 answer', 'assistant_text')],
      );

      const response = await get(`/api/diagnosis/${sessionId}/trace/reasoning?runId=${runId}`, AUDITOR);
      expect(response.status).toBe(200);
      const steps = JSON.parse(response.text).steps as Record<string, unknown>[];
      const unreadable = { content_source: 'UNDECRYPTABLE', reasoning_content: null, assistant_text: null };
      expect(steps.find((step) => step.step_index === agentStep.step_index)).toMatchObject(unreadable);
      expect(steps.find((step) => step.step_index === guardStep.step_index)).toMatchObject({
        role: 'diagnosis-agent',
        ...unreadable,
      });
      expect(steps.find((step) => step.step_index === 9)).toMatchObject({
        role: 'diagnosis-agent',
        content_source: 'PROVIDER_REASONING',
        reasoning_content: 'A1-REASONING-MARKER',
        assistant_text: 'a1 answer',
      });
      // The untouched planning step still opens.
      expect(steps).toContainEqual(
        expect.objectContaining({
          role: 'diagnosis-agent',
          content_source: 'PROVIDER_REASONING',
          reasoning_content: 'REASONING-MARKER-7c1 thinking about pools',
        }),
      );
    } finally {
      await connection.end();
    }
  });

  it('lets an auditor read any session’s trace', async () => {
    const response = await get(`/api/diagnosis/${sessionId}/trace?runId=${runId}`, AUDITOR);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toMatchObject({ run: { run_id: runId } });
  });

  it.each([
    [
      'one run’s trace',
      (session: string, run: string) => `/api/diagnosis/${session}/trace?runId=${run}`,
      200,
    ],
    ['the session’s runs', (session: string) => `/api/diagnosis/${session}/trace`, 200],
    [
      'the reasoning audit',
      (session: string, run: string) => `/api/diagnosis/${session}/trace/reasoning?runId=${run}`,
      200,
    ],
    // The list holds the calling key's own sessions; an auditor-only key creates none.
    ['the session list', () => '/api/diagnosis/sessions', 403],
  ])('answers an auditor-only key (no trace_reader) for %s with %s', async (_name, path, status) => {
    expect((await get(path(sessionId, runId), AUDITOR_ONLY)).status).toBe(status);
  });

  it('lists the calling key’s own sessions, last activity first, paginated by cursor', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'SYSTEM_CHAT' }, { content: 'SYSTEM_CHAT' }],
        'system-chat': [{ content: 'hello' }, { content: 'again' }],
      },
    });
    const longQuery = `hello ${'x'.repeat(300)}`;
    const second = await postChat(app.baseUrl, { query: longQuery }, { apiKey: OWNER });
    const secondId = String(second.events[0].data.session_id);
    const followUp = await postChat(
      app.baseUrl,
      { session_id: secondId, query: 'and again' },
      { apiKey: OWNER },
    );
    expect(followUp.status).toBe(200);

    const listed = await get('/api/diagnosis/sessions?limit=1', OWNER);
    expect(listed.status).toBe(200);
    const page = JSON.parse(listed.text);
    expect(page).toEqual({
      sessions: [
        {
          session_id: secondId,
          created_at: expect.any(String),
          updated_at: expect.any(String),
          last_run_at: expect.any(String),
          run_count: 2,
          last_outcome: 'SUCCESS',
          last_query: 'and again',
          origin: 'CHAT',
          alert_labels: null,
        },
      ],
      limit: 1,
      next_cursor: expect.any(String),
    });
    const next = JSON.parse(
      (await get(`/api/diagnosis/sessions?limit=1&cursor=${page.next_cursor}`, OWNER)).text,
    );
    expect(next.sessions).toEqual([
      expect.objectContaining({
        session_id: sessionId,
        run_count: 1,
        last_query: 'order-123 payment times out',
      }),
    ]);
    expect(Date.parse(page.sessions[0].last_run_at)).toBeGreaterThanOrEqual(
      Date.parse(next.sessions[0].last_run_at),
    );

    // last_query is cut to 200 characters: the first-run query of a one-run session shows it.
    const third = await postChat(app.baseUrl, { query: longQuery }, { apiKey: OWNER });
    const newest = JSON.parse((await get('/api/diagnosis/sessions?limit=1', OWNER)).text).sessions[0];
    expect(newest).toMatchObject({ session_id: third.events[0].data.session_id, run_count: 1 });
    expect(newest.last_query).toBe(longQuery.slice(0, 200));

    // Another key sees none of them, auditor or not; a chat-only key may not list.
    for (const key of [READER, AUDITOR]) {
      const other = JSON.parse((await get('/api/diagnosis/sessions', key)).text);
      expect(other.sessions.map((s: { session_id: string }) => s.session_id)).not.toContain(sessionId);
      expect(other.next_cursor).toBeNull();
    }
    expect((await get('/api/diagnosis/sessions', CHAT_ONLY)).status).toBe(403);
    expect((await get('/api/diagnosis/sessions', undefined)).status).toBe(401);
    expect((await get('/api/diagnosis/sessions?limit=101', OWNER)).status).toBe(400);
    // Paging is by cursor only: an offset is refused rather than ignored.
    expect((await get('/api/diagnosis/sessions?offset=1', OWNER)).status).toBe(400);
  });

  it.each([
    ['a session_id the server never issued', () => 'never-issued-session-0001', OWNER],
    ['a session_id of another key', () => sessionId, CHAT_ONLY],
  ])('refuses %s with 404 before any stream or run', async (_name, session, key) => {
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      const count = async () =>
        (await connection.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM diagnosis_run'))[0][0]
          .n as number;
      const before = await count();
      const response = await postChat(
        app.baseUrl,
        { session_id: session(), query: 'continue' },
        { apiKey: key },
      );
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.json).toEqual({ statusCode: 404, error: 'Not Found', message: 'session not found' });
      expect(await count()).toBe(before);
      const [owner] = await connection.query<RowDataPacket[]>(
        'SELECT owner_key_digest FROM chat_session WHERE session_id = ?',
        [sessionId],
      );
      expect(owner[0].owner_key_digest).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await connection.end();
    }
  });
});

describe('access control on chat and documents, rate limiting, retention', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({
      THROTTLE_LIMIT: '5',
      THROTTLE_TTL_MS: '60000',
      AUDIT_RETENTION_DAYS: '30',
      TRACE_RETENTION_DAYS: '180',
    });
  });
  afterAll(() => app?.close());

  it.each([
    ['chat without a key', '/api/chat', 'POST', undefined, 401],
    ['chat with a trace_reader key', '/api/chat', 'POST', READER, 403],
    ['documents without a key', '/api/documents/status/INDEXED', 'GET', undefined, 401],
    ['documents with an auditor key', '/api/documents/status/INDEXED', 'GET', AUDITOR, 403],
  ])('refuses %s', async (_name, path, method, key, status) => {
    const response = await fetch(`${app.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: method === 'POST' ? JSON.stringify({ query: 'hi' }) : undefined,
    });
    expect(response.status).toBe(status);
  });

  it('purges only expired reasoning-audit rows and sessions', async () => {
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    const day = 24 * 60 * 60 * 1000;
    const ago = (days: number) => new Date(Date.now() - days * day);
    try {
      await connection.query(
        'INSERT INTO chat_session (session_id, created_at, updated_at) VALUES (?, ?, ?), (?, ?, ?)',
        ['purge-old-session', ago(200), ago(200), 'purge-new-session', ago(1), ago(1)],
      );
      await connection.query(
        "INSERT INTO diagnosis_run (run_id, session_id, query, status) VALUES ('purge-old-run', 'purge-old-session', 'q', 'SUCCESS'), ('purge-new-run', 'purge-new-session', 'q', 'SUCCESS')",
      );
      await connection.query(
        "INSERT INTO agent_reasoning_audit (run_id, step_index, role, content_source, created_at) VALUES ('purge-new-run', 1, 'r', 'UNAVAILABLE', ?), ('purge-new-run', 2, 'r', 'UNAVAILABLE', ?)",
        [ago(31), ago(29)],
      );
      // A run's notification deliveries go with it (and only with it).
      await connection.query(
        "INSERT INTO notification_delivery (run_id, target_name, target_kind, run_trigger, status, owner_id) VALUES ('purge-old-run', 'ops', 'slack', 'chat', 'DELIVERED', 'e2e'), ('purge-new-run', 'ops', 'slack', 'chat', 'DELIVERED', 'e2e')",
      );
      const result = await app.app.get(RetentionService).purge();
      expect(result.deleted.chat_session).toBeGreaterThanOrEqual(1);
      expect(result.expiredAuditRows).toBeGreaterThanOrEqual(1);
      const [sessions] = await connection.query<RowDataPacket[]>(
        "SELECT session_id FROM chat_session WHERE session_id LIKE 'purge-%'",
      );
      expect(sessions.map((row) => row.session_id)).toEqual(['purge-new-session']);
      const [audits] = await connection.query<RowDataPacket[]>(
        "SELECT step_index FROM agent_reasoning_audit WHERE run_id = 'purge-new-run'",
      );
      expect(audits.map((row) => row.step_index)).toEqual([2]);
      const [runs] = await connection.query<RowDataPacket[]>(
        "SELECT run_id FROM diagnosis_run WHERE run_id LIKE 'purge-%'",
      );
      expect(runs.map((row) => row.run_id)).toEqual(['purge-new-run']);
      const [deliveries] = await connection.query<RowDataPacket[]>(
        "SELECT run_id FROM notification_delivery WHERE run_id LIKE 'purge-%'",
      );
      expect(deliveries.map((row) => row.run_id)).toEqual(['purge-new-run']);
    } finally {
      await connection.end();
    }
  });

  it('rate-limits the public endpoints with 429 but never /health', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      statuses.push(
        (await fetch(`${app.baseUrl}/api/diagnosis/nobody/trace`, { headers: { 'x-api-key': READER } }))
          .status,
      );
    }
    expect(statuses).toContain(429);
    expect((await fetch(`${app.baseUrl}/health`)).status).toBe(200);
  });
});

/** How audit text was sealed before role and content source were bound: `a1:`, [run, step, column] as additional data. */
function a1Seal(key: Buffer, text: string, cell: [string, number, string]): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(JSON.stringify(cell), 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return `a1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}
