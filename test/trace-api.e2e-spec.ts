import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RunningApp, startApp } from './support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from './support/diagnosis-scripts';
import { postChat } from './support/sse-client';
import { StubLlmServer } from './support/stub-llm/stub-llm-server';
import { TEST_MYSQL } from './support/test-env';

const READER = 'e2e-trace-reader-key-0001';
const AUDITOR = 'e2e-auditor-key-000001';
const CHAT_ONLY = 'e2e-chat-only-key-00001';

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
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    streamText = response.text;
    sessionId = String(response.events[0].data.session_id);
    runId = String(response.events[0].data.run_id);
  });
  afterAll(async () => {
    await app?.close();
    await stub.stop();
  });

  it('returns the run as the stream showed it, with bounded metadata only', async () => {
    const response = await get(`/api/diagnosis/${sessionId}/trace?runId=${runId}`, READER);
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
    expect(response.text).not.toMatch(
      /REASONING-MARKER|HikariPool-1 - Connection|evidence supports the analysis|1\. check order-service logs/,
    );
  });

  it('lists the session’s runs newest first, paginated', async () => {
    const trace = JSON.parse((await get(`/api/diagnosis/${sessionId}/trace?limit=5`, READER)).text);
    expect(trace).toMatchObject({
      session: { session_id: sessionId },
      runs: [expect.objectContaining({ run_id: runId })],
      limit: 5,
      offset: 0,
    });
    expect((await get(`/api/diagnosis/${sessionId}/trace?limit=0`, READER)).status).toBe(400);
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
    ['an unknown run', `/trace?runId=no-such-run`, READER, 404],
  ])('answers %s with %s', async (name, path, key, status) => {
    const session = name === 'a run of another session' ? 'someone-elses-session' : sessionId;
    const response = await get(`/api/diagnosis/${session}${path.replace('RUN', runId)}`, key);
    expect(response.status).toBe(status);
    expect(response.text).not.toContain('REASONING-MARKER');
  });
});
