import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { createHash, randomUUID } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { useStubbedApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { alertmanagerBody } from '../support/alerts';
import { postChat } from '../support/sse-client';
import { adminFetch, keyFetch, TEST_KEYS, TEST_MYSQL } from '../support/test-env';

type Schema = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface OpenApi {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, Operation>>;
}

/**
 * OpenAPI 3.0 schema → JSON Schema, by the 3.0.3 rule: `nullable: true` adds "null" to the `type` of
 * the same schema object and nothing else (an `enum` must list null itself); refs point into the
 * document registered under DOC.
 */
const DOC = 'openapi';
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable' || key === 'example') continue;
    out[key] = key === '$ref' && typeof value === 'string' ? `${DOC}${value}` : toJsonSchema(value);
  }
  const source = node as Schema;
  if (source.nullable === true && typeof source.type === 'string') out.type = [source.type, 'null'];
  return out;
}

/** The first matching OpenAPI path template of a concrete request path. */
function templateOf(doc: OpenApi, path: string): string {
  const template = Object.keys(doc.paths).find((candidate) =>
    new RegExp(`^${candidate.replace(/\{[^/}]+\}/g, '[^/]+')}$`).test(path),
  );
  if (!template) throw new Error(`${path} is not documented`);
  return template;
}

const OWNER = TEST_KEYS.operator;
/** A key of this file alone, so its session list holds exactly what the file creates. */
const LISTER = TEST_KEYS.sessionOwner;

describe('every response matches the schema the served OpenAPI document declares for it', () => {
  const fixture = useStubbedApp();
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>();
  let doc: OpenApi;
  let sessionId: string;
  let runId: string;
  let documentId: string;
  let alertSessionId: string;

  /** Sends the request and checks its status is documented and its JSON body matches that schema. */
  async function exchange(
    name: string,
    path: string,
    init: RequestInit & { key?: string } = {},
  ): Promise<{ status: number; body: unknown }> {
    const { key = OWNER, ...request } = init;
    const response = await keyFetch(key, `${fixture.app.baseUrl}${path}`, request);
    const method = (request.method ?? 'GET').toLowerCase();
    const operation = doc.paths[templateOf(doc, path.split('?')[0])]?.[method];
    const status = String(response.status);
    const declared = operation?.responses[status];
    expect({ name, method, path, status, documented: declared !== undefined }).toEqual({
      name,
      method,
      path,
      status,
      documented: true,
    });
    const text = await response.text();
    const schema = declared?.content?.['application/json']?.schema;
    if (response.status === 204) return { status: response.status, body: null };
    expect({ name, status, hasSchema: schema !== undefined }).toEqual({ name, status, hasSchema: true });
    const body = JSON.parse(text) as unknown;
    const id = `${method} ${path.split('?')[0]} ${status}`;
    let validate = validators.get(id);
    if (!validate) {
      validate = ajv.compile(toJsonSchema(schema) as Schema);
      validators.set(id, validate);
    }
    const valid = validate(body);
    expect({ name, status, errors: valid ? [] : validate.errors }).toEqual({ name, status, errors: [] });
    return { status: response.status, body };
  }

  beforeAll(async () => {
    const response = await fetch(`${fixture.app.baseUrl}/api/docs-json`);
    doc = (await response.json()) as OpenApi;
    ajv.addSchema({ $id: DOC, components: toJsonSchema(doc.components) as Schema });

    const [plan, final] = agentTurns(draftJson({ marker: 'OPENAPI' }));
    fixture.stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [plan, final],
        'semantic-guard': [SUPPORTED],
      },
    });
    const chat = await postChat(
      fixture.app.baseUrl,
      { query: 'order-123 payment times out' },
      { apiKey: OWNER },
    );
    sessionId = String(chat.events[0].data.session_id);
    runId = String(chat.events[0].data.run_id);

    // What the service also sends: a session with no ended run yet (every summary field null) and a
    // timeline event whose details hold a null.
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      await connection.query(
        'INSERT INTO chat_session (session_id, owner_key_digest, created_at, updated_at) VALUES (?, ?, NOW(3), NOW(3))',
        [`s-openapi-${randomUUID()}`, createHash('sha256').update(LISTER, 'utf8').digest('hex')],
      );
      await connection.query(
        "INSERT INTO diagnosis_trace_event (run_id, phase, event_type, details) VALUES (?, 'RELEASE', 'RELEASED', ?)",
        [runId, JSON.stringify({ outcome: 'SUCCESS', fallback_reason: null })],
      );
      // Notification deliveries in each state, the nullable fields null and set.
      await connection.query(
        `INSERT INTO notification_delivery
           (run_id, target_name, target_kind, run_trigger, status, failure, attempts, last_http_status, vendor_code, owner_id)
         VALUES (?, 'ops-slack', 'slack', 'chat', 'DELIVERED', NULL, 2, 200, NULL, 'openapi'),
                (?, 'ops-wecom', 'wecom', 'alert', 'FAILED', 'VENDOR_ERROR', 1, 200, 93000, 'openapi'),
                (?, 'ops-webhook', 'webhook', 'chat', 'SENDING', NULL, 0, NULL, NULL, 'openapi')`,
        [runId, runId, runId],
      );
    } finally {
      await connection.end();
    }

    const form = new FormData();
    form.append('file', new Blob(['# 支付超时\n先看连接池'], { type: 'text/markdown' }), '支付超时.md');
    const upload = await adminFetch(`${fixture.app.baseUrl}/api/upload`, { method: 'POST', body: form });
    documentId = String(((await upload.json()) as { document_id: string }).document_id);
  });

  it('answers an alert notification and the alert groups’ sessions as documented', async () => {
    const alert = await exchange('alert', '/api/alerts/alertmanager', {
      key: TEST_KEYS.alertIngest,
      method: 'POST',
      body: JSON.stringify(
        alertmanagerBody({ groupKey: `{}:{openapi="${randomUUID()}"}`, status: 'resolved' }),
      ),
      headers: JSON_HEADERS(),
    });
    expect(alert.status).toBe(202);
    alertSessionId = (alert.body as { session_id: string }).session_id;
    const list = await exchange('alert sessions', '/api/diagnosis/sessions?scope=alert&limit=100');
    expect((list.body as { sessions: { origin: string }[] }).sessions[0]?.origin).toBe('ALERT');
    const session = await exchange('alert session', `/api/diagnosis/${alertSessionId}/trace`);
    expect((session.body as { session: { origin: string } }).session.origin).toBe('ALERT');
  });

  it('answers the session lists as documented, a session without an ended run included', async () => {
    const own = await exchange('sessions', '/api/diagnosis/sessions?limit=100', { key: LISTER });
    const sessions = (own.body as { sessions: { last_outcome: string | null }[] }).sessions;
    expect(sessions.some((session) => session.last_outcome === null)).toBe(true);
    await exchange('sessions of the chat key', '/api/diagnosis/sessions');
  });

  it('answers one run’s trace, the session’s runs and the reasoning audit as documented', async () => {
    const trace = await exchange('trace', `/api/diagnosis/${sessionId}/trace?runId=${runId}`);
    expect(trace.status).toBe(200);
    const timeline = (trace.body as { timeline: { details: Record<string, unknown> | null }[] }).timeline;
    expect(timeline.some((event) => event.details && Object.values(event.details).includes(null))).toBe(true);
    const notifications = (trace.body as { notifications: { status: string }[] }).notifications;
    expect(notifications.map((row) => row.status).sort()).toEqual(['DELIVERED', 'FAILED', 'SENDING']);
    expect((await exchange('runs', `/api/diagnosis/${sessionId}/trace`)).status).toBe(200);
    const reasoning = `/api/diagnosis/${sessionId}/trace/reasoning?runId=${runId}`;
    expect((await exchange('reasoning', reasoning, { key: TEST_KEYS.auditorOnly })).status).toBe(200);
  });

  it('answers the knowledge document endpoints as documented', async () => {
    for (const [name, path] of [
      ['by status', '/api/documents/status/INDEXED'],
      ['a page by status', '/api/documents/status/INDEXED?limit=1'],
      ['by fault source', '/api/documents/faultSource/payment-service'],
      ['one document', `/api/documents/${documentId}`],
      ['its chunks', `/api/documents/${documentId}/chunks`],
    ]) {
      expect((await exchange(name, path, { key: TEST_KEYS.chat })).status).toBe(200);
    }
    const deleted = await exchange('delete', `/api/documents/${documentId}`, {
      key: TEST_KEYS.knowledgeAdmin,
      method: 'DELETE',
    });
    expect(deleted.status).toBe(204);
  });

  it.each<[string, string, RequestInit & { key?: string }, number]>([
    ['an invalid limit', '/api/diagnosis/sessions?limit=0', {}, 400],
    ['a cursor it did not issue', '/api/diagnosis/sessions?cursor=nope', {}, 400],
    ['an unknown query parameter', '/api/diagnosis/sessions?offset=3', {}, 400],
    ['a run-list cursor it did not issue', '/api/diagnosis/SESSION/trace?cursor=nope', {}, 400],
    ['a run-list offset', '/api/diagnosis/SESSION/trace?offset=1', {}, 400],
    ['an API key in the URL', '/api/documents/status/INDEXED?api_key=x', {}, 400],
    ['an unknown session', '/api/diagnosis/no-such-session/trace', {}, 404],
    ['an unknown run', '/api/diagnosis/SESSION/trace?runId=no-such-run', {}, 404],
    ['reasoning without runId', '/api/diagnosis/SESSION/trace/reasoning', { key: TEST_KEYS.auditor }, 400],
    ['no key', '/api/diagnosis/sessions', { key: '' }, 401],
    ['a key without the role', '/api/diagnosis/sessions', { key: TEST_KEYS.chat }, 403],
    ['an unknown document status', '/api/documents/status/NOPE', { key: TEST_KEYS.chat }, 400],
    ['a documents limit of 0', '/api/documents/status/INDEXED?limit=0', { key: TEST_KEYS.chat }, 400],
    ['a documents limit over 200', '/api/documents/status/INDEXED?limit=201', { key: TEST_KEYS.chat }, 400],
    [
      'a documents cursor it did not issue',
      '/api/documents/status/INDEXED?cursor=x',
      { key: TEST_KEYS.chat },
      400,
    ],
    [
      'a documents cursor it did not issue',
      '/api/documents/faultSource/payment-service?cursor=x',
      { key: TEST_KEYS.chat },
      400,
    ],
    ['an unknown document', '/api/documents/no-such-doc', { key: TEST_KEYS.chat }, 404],
    ['an unknown document’s chunks', '/api/documents/no-such-doc/chunks', { key: TEST_KEYS.chat }, 404],
    [
      'deleting an unknown document',
      '/api/documents/no-such-doc',
      { key: TEST_KEYS.knowledgeAdmin, method: 'DELETE' },
      404,
    ],
    [
      'an upload without a file',
      '/api/upload',
      { key: TEST_KEYS.knowledgeAdmin, method: 'POST', body: new FormData() },
      400,
    ],
    [
      'an upload that is not multipart',
      '/api/upload',
      {
        key: TEST_KEYS.knowledgeAdmin,
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      },
      415,
    ],
    ['a chat without a query', '/api/chat', { method: 'POST', body: '{}', headers: JSON_HEADERS() }, 400],
    [
      'an alert body that is no webhook',
      '/api/alerts/alertmanager',
      { key: TEST_KEYS.alertIngest, method: 'POST', body: '{"version":"4"}', headers: JSON_HEADERS() },
      400,
    ],
    [
      'an alert from a key without the role',
      '/api/alerts/alertmanager',
      { method: 'POST', body: JSON.stringify(alertmanagerBody()), headers: JSON_HEADERS() },
      403,
    ],
    ['an unknown session list scope', '/api/diagnosis/sessions?scope=all', {}, 400],
    [
      'a chat body that is not JSON',
      '/api/chat',
      { method: 'POST', body: '{', headers: JSON_HEADERS() },
      400,
    ],
    [
      'a chat in text/plain',
      '/api/chat',
      { method: 'POST', body: 'hi', headers: { 'content-type': 'text/plain' } },
      415,
    ],
    [
      'a chat body over 100 KB',
      '/api/chat',
      { method: 'POST', body: JSON.stringify({ query: 'x'.repeat(200_000) }), headers: JSON_HEADERS() },
      413,
    ],
    [
      'a chat in a session never issued',
      '/api/chat',
      {
        method: 'POST',
        body: JSON.stringify({ query: 'hi', session_id: 'never-issued' }),
        headers: JSON_HEADERS(),
      },
      404,
    ],
  ])('answers %s with a documented %s error body', async (name, path, init, status) => {
    const response = await exchange(name, path.replace('SESSION', sessionId), init);
    expect(response.status).toBe(status);
  });
});

function JSON_HEADERS(): Record<string, string> {
  return { 'content-type': 'application/json' };
}
