import { request as httpRequest } from 'node:http';
import { RunningApp, startApp } from '../support/app-under-test';
import { TEST_KEYS } from '../support/test-env';

/** Raw HTTP, so the test controls exactly the bytes and headers a broken client sends. */
function send(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
): Promise<{ status: number; type: string; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          json: JSON.parse(text) as Record<string, unknown>,
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const nested = (depth: number) => `{"query":${'['.repeat(depth)}"x"${']'.repeat(depth)}}`;

describe('request parsing errors and credentials in URLs', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app?.close());

  const json = { 'content-type': 'application/json', 'x-api-key': TEST_KEYS.chat };

  it.each([
    ['a body over the limit', json, `{"query":"${'x'.repeat(200_000)}"}`, 413, 'request body is too large'],
    // Nest maps body-parser's SyntaxError to 400 with the parser's own message.
    ['malformed JSON', json, '{"query":', 400, expect.any(String)],
    [
      'an unsupported charset',
      { ...json, 'content-type': 'application/json; charset=klingon' },
      '{"query":"hi"}',
      415,
      'request body charset is not supported; send UTF-8',
    ],
    [
      'an unsupported content encoding',
      { ...json, 'content-encoding': 'compress' },
      '{"query":"hi"}',
      415,
      'request content encoding is not supported; send identity, gzip or deflate',
    ],
    [
      'a br content encoding on a plain body',
      { ...json, 'content-encoding': 'br' },
      '{"query":"hi"}',
      400,
      'request body does not match its Content-Encoding',
    ],
    [
      'a deflate content encoding on a plain body',
      { ...json, 'content-encoding': 'deflate' },
      '{"query":"hi"}',
      400,
      'request body does not match its Content-Encoding',
    ],
    [
      'JSON nested too deep',
      json,
      nested(5000),
      400,
      'request body is nested too deeply (more than 32 levels)',
    ],
    ['a JSON body that is not an object or array', json, '"just a string"', 400, expect.any(String)],
    [
      'a text/plain body holding JSON',
      { ...json, 'content-type': 'text/plain' },
      '{"query":"hi"}',
      415,
      'request body must be sent as application/json',
    ],
    [
      'a form body',
      { ...json, 'content-type': 'application/x-www-form-urlencoded' },
      'query=hi',
      415,
      'request body must be sent as application/json',
    ],
    [
      // Left unread, not parsed first: no form parser runs on a body every endpoint refuses.
      'a form body of 5,000 fields and over 100 KB',
      { ...json, 'content-type': 'application/x-www-form-urlencoded' },
      Array.from({ length: 5000 }, (_, index) => `field${index}=${'x'.repeat(20)}`).join('&'),
      415,
      'request body must be sent as application/json',
    ],
    [
      'JSON labelled UTF-16',
      { ...json, 'content-type': 'application/json; charset=utf-16' },
      Buffer.from('\ufeff{"query":"hi"}', 'utf16le'),
      415,
      'request body charset is not supported; send UTF-8',
    ],
    [
      'JSON labelled latin1',
      { ...json, 'content-type': 'application/json; charset=ISO-8859-1' },
      '{"query":"hi"}',
      415,
      'request body charset is not supported; send UTF-8',
    ],
  ])('answers %s with a clear JSON error, never 500', async (_name, headers, body, status, message) => {
    const response = await send(app.baseUrl, '/api/chat', headers, body);
    expect(response.status).toBe(status);
    expect(response.type).toContain('application/json');
    expect(response.json).toMatchObject({ statusCode: status, message });
  });

  it('still takes JSON in UTF-8 with any letter case in the charset label', async () => {
    const response = await send(
      app.baseUrl,
      '/api/chat',
      { ...json, 'content-type': 'Application/JSON; charset="UTF-8"' },
      '{"query":"","unexpected":1}',
    );
    // Past the media-type check: validation answers about the body itself.
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.json.message)).not.toContain('request body must be sent as');
  });

  it.each([
    ['no API key: 401', { 'content-type': 'text/plain' }, 401],
    [
      'an API key without the chat role: 403',
      { 'content-type': 'text/plain', 'x-api-key': TEST_KEYS.metrics },
      403,
    ],
  ])('judges the caller before the body: %s', async (_name, headers, status) => {
    const response = await send(app.baseUrl, '/api/chat', headers, nested(5000));
    expect(response.status).toBe(status);
  });

  it('refuses JSON on the upload endpoint, which takes multipart/form-data', async () => {
    const response = await send(
      app.baseUrl,
      '/api/documents/upload',
      { 'content-type': 'application/json', 'x-api-key': TEST_KEYS.knowledgeAdmin },
      '{"title":"t"}',
    );
    expect(response.status).toBe(415);
    expect(response.json).toMatchObject({
      statusCode: 415,
      message: 'request body must be sent as multipart/form-data',
    });
  });

  it('keeps serving after a client aborts its body half-way', async () => {
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${app.baseUrl}/api/chat`, {
        method: 'POST',
        headers: { ...json, 'content-length': '1000' },
      });
      req.on('error', () => resolve());
      req.write('{"query":"half');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
    const health = await fetch(`${app.baseUrl}/health`);
    expect(health.status).toBe(200);
  });

  it.each([
    '/api/diagnosis/sessions?api_key=KEY',
    '/api/diagnosis/sessions?x-api-key=KEY',
    '/api/diagnosis/sessions?access_token=KEY',
    '/api/documents/status/INDEXED?apiKey=KEY',
  ])('refuses an API key in the query string: %s', async (path) => {
    const response = await fetch(`${app.baseUrl}${path.replace('KEY', TEST_KEYS.operator)}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      message: 'API keys are not accepted in the URL; send the x-api-key header or Authorization: Bearer.',
    });
  });
});
