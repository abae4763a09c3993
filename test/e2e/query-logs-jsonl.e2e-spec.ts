import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useStubbedApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { postChat } from '../support/sse-client';
import { ChatCompletionRequest } from '../support/stub-llm/stub-llm-server';
import { TEST_KEYS } from '../support/test-env';

/** An exported incident: the HikariCP errors sit 10-25 minutes before the replayed "now". */
const NOW = '2026-11-20T10:30:00.000Z';
const logsDir = mkdtempSync(join(tmpdir(), 'e2e-jsonl-'));
writeFileSync(
  join(logsDir, 'application-order.jsonl'),
  [
    ...Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({
        '@timestamp': `2026-11-20T10:${String(5 + i).padStart(2, '0')}:00Z`,
        severity: 'error',
        app: 'order-service',
        msg: `HikariPool-1 - Connection is not available, request timed out after 30000ms (req ${i})`,
      }),
    ),
    // an unreadable line that could hold the query's terms (a record cut short) among the window's
    // records: the released report must say so (lines that cannot match are not examined at all)
    '{"@timestamp":"2026-11-20T10:17:00Z","severity":"error","app":"order-service","msg":"HikariPool-1 - Conn',
    // outside the replayed 30-minute window
    JSON.stringify({
      '@timestamp': '2026-11-20T09:00:00Z',
      severity: 'error',
      app: 'order-service',
      msg: 'HikariPool-1 - Connection is not available, old',
    }),
  ].join('\n'),
);

const systemPrompt = (request: { body: ChatCompletionRequest }) =>
  String(request.body.messages?.find((message) => message.role === 'system')?.content ?? '');
const toolNames = (request: { body: ChatCompletionRequest }) =>
  (request.body.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name);

async function traceOf(baseUrl: string, sessionId: string, runId: string) {
  const response = await fetch(`${baseUrl}/api/diagnosis/${sessionId}/trace?runId=${runId}`, {
    headers: { 'x-api-key': TEST_KEYS.operator },
  });
  return (await response.json()) as {
    tool_invocations: { tool_name: string; status: string; error_code: string }[];
  };
}

describe('a diagnosis over a JSON-lines log export (LOG_BACKEND=jsonl)', () => {
  const suite = useStubbedApp({
    LOG_BACKEND: 'jsonl',
    LOGS_JSONL_DIR: logsDir,
    LOGS_JSONL_NOW: NOW,
    LOGS_JSONL_TOPICS: 'APPLICATION=application-*.jsonl',
    LOGS_FILE_RULES:
      'application-*.jsonl: timestamp_field=@timestamp level_field=severity service_field=app message_field=msg',
  });
  afterAll(() => rmSync(logsDir, { recursive: true, force: true }));

  it('cites FILE evidence from the replayed window in the released report', async () => {
    suite.stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(suite.app.baseUrl, { query: 'order-123 payment times out' });
    const content = response.events.find((event) => event.event === 'content')?.data;
    expect(content?.content_type).toBe('DIAGNOSIS_REPORT');
    const payload = content?.payload as {
      limitations: { missing_info: string[] };
      references: { source_type: string; source: string; scope: string; values: { patterns: unknown[] } }[];
    };
    expect(payload.references).toEqual([
      expect.objectContaining({
        source_type: 'LOG',
        source: 'APPLICATION (FILE)',
        scope: expect.stringContaining(
          '2026-11-20T10:00:00.000Z – 2026-11-20T10:30:00.000Z; 12 matching events',
        ),
      }),
    ]);
    expect(payload.limitations.missing_info).toContainEqual(
      expect.stringContaining('The cited log searches hold 1 unreadable line in their scope'),
    );
    expect(payload.references[0].values.patterns).toEqual([
      expect.objectContaining({ count: 12, service: 'order-service', level: 'ERROR' }),
    ]);
    const [agent] = suite.stub.requestsFor('diagnosis-agent');
    expect(toolNames(agent)).toContain('query_logs');
    expect(systemPrompt(agent)).toContain('- query_logs:');
    expect(systemPrompt(agent)).not.toContain('<!-- tool:');
  });
});

describe('without a log backend (LOG_BACKEND=none)', () => {
  const suite = useStubbedApp({ LOG_BACKEND: 'none' });

  it('offers no query_logs, names none in the prompt, and a call to it is an unknown tool without a reference', async () => {
    suite.stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'evidence-repair': [{ content: draftJson() }],
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(
      suite.app.baseUrl,
      { query: 'order-123 payment times out' },
      { apiKey: TEST_KEYS.operator },
    );
    const [agent] = suite.stub.requestsFor('diagnosis-agent');
    expect(toolNames(agent).sort()).toEqual(['lookup_knowledge', 'query_mysql']);
    expect(systemPrompt(agent)).not.toContain('query_logs');
    const content = response.events.find((event) => event.event === 'content')?.data;
    expect(content).toMatchObject({
      content_type: 'FALLBACK',
      payload: { type: 'EVIDENCE_VALIDATION_FAILED' },
    });
    const metadata = response.events[0].data as { session_id: string; run_id: string };
    const trace = await traceOf(suite.app.baseUrl, metadata.session_id, metadata.run_id);
    expect(trace.tool_invocations).toEqual([
      expect.objectContaining({ tool_name: 'query_logs', status: 'ERROR', error_code: 'UNKNOWN_TOOL' }),
    ]);
  });
});
