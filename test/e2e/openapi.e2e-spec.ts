import { RunningApp, startApp } from '../support/app-under-test';

interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}
interface OpenApi {
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = ['get', 'post', 'delete', 'put', 'patch'];

describe('OpenAPI document at /api/docs', () => {
  let app: RunningApp;
  let doc: OpenApi;
  let operations: [string, Operation][];

  beforeAll(async () => {
    app = await startApp();
    const response = await fetch(`${app.baseUrl}/api/docs-json`);
    expect(response.status).toBe(200);
    doc = (await response.json()) as OpenApi;
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]): [string, Operation] => [`${method.toUpperCase()} ${path}`, operation]),
    );
  });
  afterAll(() => app?.close());

  it('declares the API key scheme (header and bearer) for the Authorize button', () => {
    expect(doc.components.securitySchemes).toEqual({
      'api-key': expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
  });

  it('documents every endpoint of the contract', () => {
    expect(operations.map(([name]) => name).sort()).toEqual(
      [
        'DELETE /api/documents/{docId}',
        'GET /api/diagnosis/sessions',
        'GET /api/diagnosis/{sessionId}/trace',
        'GET /api/diagnosis/{sessionId}/trace/reasoning',
        'GET /api/documents/faultSource/{faultSource}',
        'GET /api/documents/status/{status}',
        'GET /api/documents/{docId}',
        'GET /api/documents/{docId}/chunks',
        'GET /health',
        'POST /api/alerts/alertmanager',
        'GET /health/live',
        'POST /api/chat',
        'POST /api/documents/upload',
        'POST /api/upload',
      ].sort(),
    );
  });

  it('gives every /api endpoint the key requirement and its 401/403/429 answers as error bodies', () => {
    for (const [name, operation] of operations.filter(([name]) => name.includes(' /api/'))) {
      expect({ name, security: operation.security }).toEqual({
        name,
        security: [{ 'api-key': [] }, { bearer: [] }],
      });
      for (const status of ['401', '403', '429']) {
        expect({
          name,
          status,
          schema: operation.responses[status]?.content?.['application/json']?.schema,
        }).toEqual({ name, status, schema: { $ref: '#/components/schemas/ApiErrorDto' } });
      }
    }
  });

  it('gives every endpoint a success schema and at least one client-error answer', () => {
    for (const [name, operation] of operations) {
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'));
      expect({ name, success: success !== undefined }).toEqual({ name, success: true });
      const [status, response] = success!;
      if (status !== '204') {
        expect({ name, content: Object.keys(response.content ?? {}).length > 0 }).toEqual({
          name,
          content: true,
        });
      }
      const clientErrors = Object.keys(operation.responses).filter((code) => /^[45]/.test(code));
      expect({ name, errors: clientErrors.length > 0 }).toEqual({ name, errors: true });
    }
  });

  it('describes the trace and session list bodies field by field', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        'RunTraceDto',
        'SessionRunsDto',
        'RunReasoningDto',
        'SessionListDto',
        'DocumentDto',
      ]),
    );
    expect(doc.components.schemas.SessionSummaryDto).toMatchObject({
      required: expect.arrayContaining([
        'session_id',
        'created_at',
        'last_run_at',
        'run_count',
        'last_query',
      ]),
    });
  });
});
