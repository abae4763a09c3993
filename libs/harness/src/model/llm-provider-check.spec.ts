import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  baseUrlCandidates,
  checkLlmProvider,
  judgeConnectionFailure,
  judgeProviderAnswer,
} from './llm-provider-check';

describe('judgeProviderAnswer', () => {
  const key = { error: { code: 'invalid_api_key', message: 'Incorrect API key provided: sk-secret-0001' } };
  it.each([
    [
      'models',
      { status: 401, body: key },
      'MODEL_AUTH_FAILED',
      'the provider rejected LLM_API_KEY (401)',
      /LLM_API_KEY/,
    ],
    [
      'completion',
      { status: 403, body: null },
      'MODEL_AUTH_FAILED',
      'the provider rejected LLM_API_KEY (403)',
      /LLM_API_KEY/,
    ],
    [
      'completion',
      {
        status: 400,
        body: [
          {
            error: {
              code: 400,
              message: 'API key not valid. Please pass a valid API key.',
              status: 'INVALID_ARGUMENT',
            },
          },
        ],
      },
      'MODEL_AUTH_FAILED',
      'the provider rejected LLM_API_KEY (400): API key not valid. Please pass a valid API key. [400]',
      /LLM_API_KEY/,
    ],
    [
      'completion',
      {
        status: 401,
        body: { error: { code: '401', message: 'Access denied due to invalid subscription key' } },
      },
      'MODEL_AUTH_FAILED',
      /rejected LLM_API_KEY/,
      /LLM_API_KEY/,
    ],
    [
      'completion',
      { status: 402, body: { error: { message: 'Insufficient Balance' } } },
      'MODEL_QUOTA_EXHAUSTED',
      /no balance or quota/,
      /settings are right/,
    ],
    [
      'models',
      { status: 404, body: { error: { code: 'model_not_found' } } },
      'MODEL_NOT_FOUND',
      'model m1 not found (HTTP 404 ([model_not_found]))',
      /LLM_MODEL/,
    ],
    [
      'completion',
      { status: 404, body: { object: 'error', message: 'The model `m1` does not exist.', code: 404 } },
      'MODEL_NOT_FOUND',
      /model m1 not found/,
      /LLM_MODEL/,
    ],
    // A 404 that names no model is the URL, never the model.
    [
      'completion',
      { status: 404, body: null },
      'MODEL_ENDPOINT_INVALID',
      'nothing answers a 1-token completion at LLM_BASE_URL (HTTP 404)',
      null,
    ],
    [
      'models',
      { status: 404, body: '<html>Not Found</html>' },
      'MODEL_ENDPOINT_INVALID',
      /nothing answers GET \/models/,
      null,
    ],
    [
      'completion',
      {
        status: 400,
        body: { error: { code: 'invalid_parameter_error', message: 'only support stream mode' } },
      },
      'MODEL_REQUEST_REJECTED',
      'the provider answered a 1-token completion with HTTP 400 (only support stream mode [invalid_parameter_error])',
      /provider message/,
    ],
    [
      'completion',
      { status: 200, body: { error: { code: 401, message: 'No auth credentials found' } } },
      'MODEL_AUTH_FAILED',
      /rejected LLM_API_KEY/,
      /LLM_API_KEY/,
    ],
    ['models', { status: 503, body: null }, 'MODEL_UNAVAILABLE', /busy or unavailable/, /no setting/],
    [
      'models',
      { status: 200, body: { data: [{ id: 'm2' }] } },
      'MODEL_NOT_FOUND',
      "model m1 not found in the provider's model list",
      /LLM_MODEL/,
    ],
  ] as const)('%s %p -> %s', (mode, answer, code, message, fix) => {
    const result = judgeProviderAnswer(mode, 'm1', answer, ['sk-secret-0001']);
    expect(result).toMatchObject({ up: false, httpStatus: answer.status, code });
    if (typeof message === 'string') expect(result.message).toBe(message);
    else expect(result.message).toMatch(message);
    if (fix === null) expect(result.fix).toBeNull();
    else expect(result.fix).toMatch(fix);
  });

  it.each([
    ['models', { status: 200, body: { data: [{ id: 'm1' }] } }],
    ['models', { status: 200, body: { data: [] } }],
    ['completion', { status: 200, body: {} }],
  ] as const)('%s %p is up', (mode, answer) => {
    expect(judgeProviderAnswer(mode, 'm1', answer)).toEqual({
      up: true,
      httpStatus: 200,
      message: 'the provider accepted LLM_API_KEY and LLM_MODEL',
      code: null,
      fix: null,
    });
  });

  it('never repeats the key a provider echoes', () => {
    const result = judgeProviderAnswer('models', 'm1', { status: 500, body: key }, ['sk-secret-0001']);
    expect(result.message).not.toContain('sk-secret-0001');
  });
});

describe('judgeConnectionFailure', () => {
  const connection = (code: string) =>
    Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) });
  it.each([
    [
      connection('SELF_SIGNED_CERT_IN_CHAIN'),
      'MODEL_TLS_FAILED',
      'the TLS connection to LLM_BASE_URL failed (SELF_SIGNED_CERT_IN_CHAIN)',
      /NODE_EXTRA_CA_CERTS/,
    ],
    [
      connection('ERR_SSL_WRONG_VERSION_NUMBER'),
      'MODEL_TLS_FAILED',
      /ERR_SSL_WRONG_VERSION_NUMBER/,
      /http:\/\//,
    ],
    [
      connection('ECONNREFUSED'),
      'MODEL_UNREACHABLE',
      'the provider at LLM_BASE_URL is unreachable (ECONNREFUSED)',
      /host and port/,
    ],
    [
      Object.assign(new Error('timed out'), { name: 'TimeoutError' }),
      'MODEL_TIMEOUT',
      'the provider at LLM_BASE_URL timed out',
      /LLM_BASE_URL/,
    ],
  ])('%p -> %s', (error, code, message, fix) => {
    const result = judgeConnectionFailure(error);
    expect(result).toMatchObject({ up: false, httpStatus: null, code });
    if (typeof message === 'string') expect(result.message).toBe(message);
    else expect(result.message).toMatch(message);
    expect(result.fix).toMatch(fix);
  });
});

describe('baseUrlCandidates', () => {
  it.each([
    ['https://api.example.com', ['https://api.example.com/v1']],
    ['https://api.example.com/', ['https://api.example.com/v1']],
    ['https://api.example.com/v1/chat/completions', ['https://api.example.com/v1']],
    ['https://api.example.com/v1', []],
    [
      'https://generativelanguage.googleapis.com/v1beta/openai',
      ['https://generativelanguage.googleapis.com/v1beta/openai/v1'],
    ],
  ])('%p -> %p', (url, candidates) => {
    expect(baseUrlCandidates(url).map((candidate) => candidate.url)).toEqual(candidates);
  });
});

describe('checkLlmProvider against a server that only answers under /v1', () => {
  let server: Server;
  let root = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume().on('end', () => {
        const ok = req.url === '/v1/models' || req.url === '/v1/chat/completions';
        res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
        res.end(
          ok
            ? JSON.stringify({ object: 'list', data: [{ id: 'm1' }], choices: [] })
            : '{"detail":"Not Found"}',
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const check = (baseUrl: string, startupCheck: 'models' | 'completion' = 'models') =>
    checkLlmProvider({ baseUrl, apiKey: 'k', model: 'm1', extraBody: {}, startupCheck });

  it.each([
    ['a base URL without /v1', () => root, 'models', /lacks the \/v1 path/],
    ['a base URL without /v1 (completion check)', () => root, 'completion', /lacks the \/v1 path/],
    [
      'a doubled /chat/completions',
      () => `${root}/v1/chat/completions`,
      'models',
      /ends in \/chat\/completions/,
    ],
  ] as const)('names %s and the URL that works, never the model', async (_case, url, mode, mistake) => {
    const result = await check(url(), mode);
    expect(result).toMatchObject({
      up: false,
      code: 'MODEL_ENDPOINT_INVALID',
      fix: `set LLM_BASE_URL=${root}/v1`,
    });
    expect(result.message).toMatch(mistake);
    expect(result.message).not.toMatch(/LLM_MODEL|not found/);
  });

  it('passes at the right URL', async () => {
    expect(await check(`${root}/v1`)).toMatchObject({ up: true, fix: null });
  });
});
