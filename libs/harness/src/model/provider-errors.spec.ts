import { AIMessage } from '@langchain/core/messages';
import {
  classifyProviderError,
  classifyProviderReply,
  PROVIDER_FAILURE_CLASSES,
  ProviderBodyError,
  providerErrorDetails,
  providerFailureOf,
  providerWaitMs,
  rateLimitResetMs,
  redactCredentials,
  retryAfterMs,
} from './provider-errors';

/** A status error as the provider client throws it: the SDK's fields plus the whole body it captured. */
const apiError = (status: number, body: unknown = undefined, headers: Record<string, string> = {}) =>
  Object.assign(new Error(`${status} status code`), {
    status,
    headers: new Headers(headers),
    error: typeof body === 'object' && body !== null && 'error' in body ? body.error : undefined,
    providerBody: body,
  });

/** A failed connection as undici and the SDK report it: APIConnectionError ← TypeError ← Node error. */
const connectionError = (code: string) =>
  Object.assign(new Error('Connection error.'), {
    name: 'APIConnectionError',
    cause: Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) }),
  });

const openAi = (message: string, type: string, code: string | null) => ({
  error: { message, type, param: null, code },
});

const SHAPES: [string, unknown, string][] = [
  // transient
  [
    'OpenAI 429 rate limit',
    apiError(429, openAi('Rate limit reached', 'requests', 'rate_limit_exceeded')),
    'MODEL_RATE_LIMITED',
  ],
  [
    'Gemini 429 per-minute quota',
    apiError(429, [
      {
        error: {
          code: 429,
          message: 'Quota exceeded for metric: generate_content_requests per minute',
          status: 'RESOURCE_EXHAUSTED',
        },
      },
    ]),
    'MODEL_RATE_LIMITED',
  ],
  ['HTTP 500', apiError(500), 'MODEL_UNAVAILABLE'],
  [
    'Anthropic-style 529 overloaded',
    apiError(529, { error: { type: 'overloaded_error', message: 'Overloaded' } }),
    'MODEL_UNAVAILABLE',
  ],
  [
    'DeepSeek 503 server busy',
    apiError(503, openAi('Server is busy', 'server_error', null)),
    'MODEL_UNAVAILABLE',
  ],
  ['HTTP 408', apiError(408), 'MODEL_TIMEOUT'],
  [
    'SDK timeout',
    Object.assign(new Error('Request timed out.'), { name: 'APIConnectionTimeoutError' }),
    'MODEL_TIMEOUT',
  ],
  [
    'LangChain timeout',
    Object.assign(new Error('Request timed out.'), { name: 'TimeoutError' }),
    'MODEL_TIMEOUT',
  ],
  ['connection refused', connectionError('ECONNREFUSED'), 'MODEL_UNREACHABLE'],
  ['connection reset', connectionError('ECONNRESET'), 'MODEL_UNREACHABLE'],
  ['DNS failure', connectionError('ENOTFOUND'), 'MODEL_UNREACHABLE'],
  ['undici socket closed', connectionError('UND_ERR_SOCKET'), 'MODEL_UNREACHABLE'],
  ['bare fetch failed', new TypeError('fetch failed'), 'MODEL_UNREACHABLE'],
  [
    "the SDK's connection error around undici's bad-port refusal (no code)",
    Object.assign(new (class APIConnectionError extends Error {})('Connection error.'), {
      cause: Object.assign(new Error('fetch failed'), { name: 'TypeError', cause: new Error('bad port') }),
    }),
    'MODEL_UNREACHABLE',
  ],
  // authentication
  [
    'OpenAI 401 invalid_api_key',
    apiError(401, openAi('Incorrect API key provided: sk-abc', 'invalid_request_error', 'invalid_api_key')),
    'MODEL_AUTH_FAILED',
  ],
  [
    'Azure 401 bare body',
    apiError(401, {
      error: {
        code: '401',
        message: 'Access denied due to invalid subscription key or wrong API endpoint.',
      },
    }),
    'MODEL_AUTH_FAILED',
  ],
  [
    'Gemini 400 array body, API_KEY_INVALID',
    apiError(400, [
      {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
        },
      },
    ]),
    'MODEL_AUTH_FAILED',
  ],
  ['403 forbidden', apiError(403, { error: { message: 'Forbidden' } }), 'MODEL_AUTH_FAILED'],
  // balance and quota
  [
    'DeepSeek 402 Insufficient Balance',
    apiError(402, openAi('Insufficient Balance', 'unknown_error', 'invalid_request_error')),
    'MODEL_QUOTA_EXHAUSTED',
  ],
  [
    'OpenAI 429 insufficient_quota',
    apiError(
      429,
      openAi(
        'You exceeded your current quota, please check your plan and billing details.',
        'insufficient_quota',
        'insufficient_quota',
      ),
    ),
    'MODEL_QUOTA_EXHAUSTED',
  ],
  [
    'OpenRouter 402 credits',
    apiError(402, { error: { code: 402, message: 'Insufficient credits' } }),
    'MODEL_QUOTA_EXHAUSTED',
  ],
  // model
  [
    'OpenAI 404 model_not_found',
    apiError(
      404,
      openAi(
        'The model `gpt-9` does not exist or you do not have access to it.',
        'invalid_request_error',
        'model_not_found',
      ),
    ),
    'MODEL_NOT_FOUND',
  ],
  [
    'vLLM 404 top-level body',
    apiError(404, {
      object: 'error',
      message: 'The model `qwen3` does not exist.',
      type: 'NotFoundError',
      param: null,
      code: 404,
    }),
    'MODEL_NOT_FOUND',
  ],
  [
    'Ollama 404 model not found',
    apiError(404, {
      error: { message: 'model "llama9" not found, try pulling it first', type: 'api_error' },
    }),
    'MODEL_NOT_FOUND',
  ],
  [
    'DashScope 400 model not exist',
    apiError(400, openAi('The model `qwen-x` does not exist.', 'invalid_request_error', 'model_not_found')),
    'MODEL_NOT_FOUND',
  ],
  // content filter
  [
    'Azure 400 content_filter',
    apiError(400, {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
      },
    }),
    'MODEL_CONTENT_FILTERED',
  ],
  [
    'DashScope data_inspection_failed',
    apiError(
      400,
      openAi(
        'Input data may contain inappropriate content.',
        'data_inspection_failed',
        'data_inspection_failed',
      ),
    ),
    'MODEL_CONTENT_FILTERED',
  ],
  // context length
  [
    'OpenAI 400 context_length_exceeded',
    apiError(
      400,
      openAi(
        "This model's maximum context length is 8192 tokens.",
        'invalid_request_error',
        'context_length_exceeded',
      ),
    ),
    'MODEL_CONTEXT_TOO_LONG',
  ],
  [
    'LangChain ContextOverflowError around a 400',
    Object.assign(new Error('context overflow'), {
      name: 'ContextOverflowError',
      cause: apiError(
        400,
        openAi('maximum context length exceeded', 'invalid_request_error', 'context_length_exceeded'),
      ),
    }),
    'MODEL_CONTEXT_TOO_LONG',
  ],
  [
    'vLLM 400 prompt too long',
    apiError(400, {
      object: 'error',
      message: "This model's maximum context length is 4096 tokens. However, you requested 9000 tokens",
      type: 'BadRequestError',
      code: 400,
    }),
    'MODEL_CONTEXT_TOO_LONG',
  ],
  ['HTTP 413', apiError(413), 'MODEL_CONTEXT_TOO_LONG'],
  // TLS
  ['self-signed certificate', connectionError('DEPTH_ZERO_SELF_SIGNED_CERT'), 'MODEL_TLS_FAILED'],
  ['certificate chain', connectionError('SELF_SIGNED_CERT_IN_CHAIN'), 'MODEL_TLS_FAILED'],
  ['unknown issuer', connectionError('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'MODEL_TLS_FAILED'],
  ['expired certificate', connectionError('CERT_HAS_EXPIRED'), 'MODEL_TLS_FAILED'],
  ['host name mismatch', connectionError('ERR_TLS_CERT_ALTNAME_INVALID'), 'MODEL_TLS_FAILED'],
  // URL
  ['404 without /v1 (HTML body)', apiError(404, '<html>Not Found</html>'), 'MODEL_ENDPOINT_INVALID'],
  [
    '404 with a doubled path',
    apiError(404, { error: { message: 'no route POST /v1/chat/completions/chat/completions' } }),
    'MODEL_ENDPOINT_INVALID',
  ],
  ['405 method not allowed', apiError(405), 'MODEL_ENDPOINT_INVALID'],
  [
    "a 404 with LangChain's troubleshooting suffix",
    Object.assign(apiError(404, '<html>Not Found</html>'), {
      message:
        '404 <html>Not Found</html>\n\nTroubleshooting URL: https://docs.langchain.com/oss/javascript/langchain/errors/MODEL_NOT_FOUND/\n',
    }),
    'MODEL_ENDPOINT_INVALID',
  ],
  // HTTP 200 with an error body
  [
    '200 {"error":…} rate limit (OpenRouter)',
    new ProviderBodyError({ error: { code: 429, message: 'Rate limit exceeded' } }),
    'MODEL_RATE_LIMITED',
  ],
  [
    '200 {"error":…} upstream 502 with metadata.raw',
    new ProviderBodyError({
      error: {
        code: 502,
        message: 'Provider returned error',
        metadata: { raw: '{"error":{"message":"upstream overloaded"}}' },
      },
    }),
    'MODEL_UNAVAILABLE',
  ],
  [
    '200 {"error":"text"} no status',
    new ProviderBodyError({ error: 'something broke' }),
    'MODEL_BAD_RESPONSE',
  ],
  ['200 with neither choices nor error', new ProviderBodyError({ object: 'list' }), 'MODEL_BAD_RESPONSE'],
  // defaults
  [
    'any other 4xx',
    apiError(422, openAi('Unrecognized request argument supplied: foo', 'invalid_request_error', null)),
    'MODEL_REQUEST_REJECTED',
  ],
  [
    "DashScope's 400 for thinking without streaming",
    apiError(
      400,
      openAi('This model only support stream mode', 'invalid_request_error', 'invalid_parameter_error'),
    ),
    'MODEL_REQUEST_REJECTED',
  ],
  ['any other 5xx', apiError(599), 'MODEL_UNAVAILABLE'],
];

describe('classifyProviderError: one row per provider shape', () => {
  it.each(SHAPES.map(([shape, error, code]) => [shape, code, error] as const))(
    '%s → %s',
    (_shape, code, error) => {
      const failure = classifyProviderError(error);
      expect(failure?.code).toBe(code);
      expect(failure?.hint.transient).toBe(
        PROVIDER_FAILURE_CLASSES[code as keyof typeof PROVIDER_FAILURE_CLASSES].transient,
      );
      expect(failure?.kind).toBe(code === 'MODEL_TIMEOUT' ? 'TIMEOUT' : 'TRANSPORT');
    },
  );

  it.each([
    [
      'a TypeError the service raised building the request',
      new TypeError("Cannot read properties of undefined (reading 'id')"),
    ],
    ['a plain Error', new Error('tool call without id')],
    ['a Node argument error', Object.assign(new TypeError('bad arg'), { code: 'ERR_INVALID_ARG_TYPE' })],
    ['a string', 'oops'],
  ])('is not the provider: %s → null', (_what, error) => {
    expect(classifyProviderError(error)).toBeNull();
  });

  it('never says "wait" for a final class', () => {
    for (const [code, known] of Object.entries(PROVIDER_FAILURE_CLASSES))
      expect([code, known.remedy === 'WAIT']).toEqual([code, known.transient]);
  });

  it('drops the provider message from the failure itself', () => {
    const failure = classifyProviderError(apiError(500, { error: { message: 'secret upstream detail' } }));
    expect(failure?.message).not.toContain('secret');
  });

  it('names the network code of a failed connection', () => {
    expect(providerFailureOf(connectionError('CERT_HAS_EXPIRED'))).toEqual({
      code: 'MODEL_TLS_FAILED',
      httpStatus: null,
      networkCode: 'CERT_HAS_EXPIRED',
    });
  });
});

describe('how long the provider asked to wait', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');
  it.each([
    ['retry-after seconds', { 'retry-after': '3' }, 3000],
    ['retry-after-ms wins over retry-after', { 'retry-after-ms': '1500', 'retry-after': '9' }, 1500],
    ['fractional retry-after-ms', { 'retry-after-ms': '12.4' }, 13],
    ['x-ratelimit-reset-requests as a duration', { 'x-ratelimit-reset-requests': '1s' }, 1000],
    ['x-ratelimit-reset-tokens in minutes', { 'x-ratelimit-reset-tokens': '1m30s' }, 90_000],
    [
      'the exhausted limit counts',
      {
        'x-ratelimit-reset-requests': '20s',
        'x-ratelimit-remaining-requests': '5',
        'x-ratelimit-reset-tokens': '2s',
        'x-ratelimit-remaining-tokens': '0',
      },
      2000,
    ],
    [
      'neither exhausted: the later reset',
      { 'x-ratelimit-reset-requests': '500ms', 'x-ratelimit-reset-tokens': '2s' },
      2000,
    ],
    ['no header', {}, undefined],
  ])('%s', (_what, headers, wait) => {
    expect(providerWaitMs(apiError(429, undefined, headers), true, now)).toBe(wait);
    expect(classifyProviderError(apiError(429, undefined, headers), now)?.hint.retryAfterMs).toBe(wait);
  });

  it('reads reset headers only for a rate limit', () => {
    expect(
      providerWaitMs(apiError(503, undefined, { 'x-ratelimit-reset-requests': '1s' }), false, now),
    ).toBeUndefined();
  });

  it('gives a final class no wait at all', () => {
    expect(classifyProviderError(apiError(402, undefined, { 'retry-after': '5' }))?.hint).toEqual({
      transient: false,
    });
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');
  it.each([
    ['2', 2000],
    [' 0 ', 0],
    ['Thu, 03 Dec 2026 12:00:05 GMT', 5000],
    ['Thu, 03 Dec 2026 11:59:00 GMT', 0],
    ['soon', undefined],
    ['-1', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%p -> %p', (value, ms) => expect(retryAfterMs(value, now)).toBe(ms));
});

describe('rateLimitResetMs', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');
  it.each([
    ['1s', 1000],
    ['6m0s', 360_000],
    ['20ms', 20],
    ['2m59.56s', 179_560],
    ['1h', 3_600_000],
    ['0.5', 500],
    [String(now / 1000 + 4), 4000],
    ['Thu, 03 Dec 2026 12:00:02 GMT', 2000],
    ['later', undefined],
    ['', undefined],
  ])('%p -> %p', (value, ms) => expect(rateLimitResetMs(value, now)).toBe(ms));
});

describe('classifyProviderReply', () => {
  const reply = (content: string, finish: string, toolCalls = 0) =>
    new AIMessage({
      content,
      response_metadata: { finish_reason: finish },
      tool_calls: Array.from({ length: toolCalls }, (_, i) => ({ id: `c${i}`, name: 't', args: {} })),
    });
  it.each([
    ['content_filter with nothing written', reply('', 'content_filter'), 'MODEL_CONTENT_FILTERED'],
    ['content_filter after some text', reply('partial answer', 'content_filter'), null],
    ['content_filter with a tool call', reply('', 'content_filter', 1), null],
    ['an ordinary stop', reply('', 'stop'), null],
  ])('%s', (_what, message, code) => {
    expect(classifyProviderReply(message)?.code ?? null).toBe(code);
  });
});

describe('providerErrorDetails', () => {
  it.each([
    [
      'OpenAI body, key redacted',
      apiError(
        401,
        openAi('Incorrect API key provided: sk-abc123456789', 'invalid_request_error', 'invalid_api_key'),
      ),
      {
        status: 401,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        message: 'Incorrect API key provided: [redacted]',
      },
    ],
    [
      'vLLM top-level message',
      apiError(404, {
        object: 'error',
        message: 'The model `x` does not exist.',
        type: 'NotFoundError',
        code: 404,
      }),
      { status: 404, type: 'NotFoundError', code: '404', message: 'The model `x` does not exist.' },
    ],
    [
      'Gemini array body',
      apiError(400, [
        {
          error: {
            code: 400,
            message: 'API key not valid. Please pass a valid API key.',
            status: 'INVALID_ARGUMENT',
          },
        },
      ]),
      {
        status: 400,
        type: 'INVALID_ARGUMENT',
        code: '400',
        message: 'API key not valid. Please pass a valid API key.',
      },
    ],
    [
      'OpenRouter metadata.raw',
      apiError(400, {
        error: {
          code: 400,
          message: 'Provider returned error',
          metadata: { raw: '{"error":{"message":"reasoning_details must be passed back"}}' },
        },
      }),
      { status: 400, message: 'Provider returned error | reasoning_details must be passed back' },
    ],
    [
      'HTTP 200 with an error body',
      new ProviderBodyError({ error: { code: 429, message: 'Rate limit exceeded: free-models-per-day' } }),
      { status: 200, code: '429', message: 'Rate limit exceeded: free-models-per-day' },
    ],
    ['a plain-text body', apiError(502, 'Bad Gateway'), { status: 502, message: 'Bad Gateway' }],
    [
      'a TLS failure',
      connectionError('SELF_SIGNED_CERT_IN_CHAIN'),
      { status: null, network_code: 'SELF_SIGNED_CERT_IN_CHAIN' },
    ],
  ])('%s', (_shape, error, expected) => {
    expect(providerErrorDetails(error, ['sk-abc123456789'])).toMatchObject(expected);
  });

  it('bounds the message length', () => {
    expect(
      providerErrorDetails(apiError(400, { error: { message: 'x'.repeat(5000) } })).message,
    ).toHaveLength(300);
  });
});

describe('redactCredentials', () => {
  it.each([
    ['Authorization: Bearer abc.def', 'Authorization: Bearer [redacted]'],
    ['api_key=abcdef123', 'api_key=[redacted]'],
    ['key sk-proj-ABCDEFGH1234 is wrong', 'key [redacted] is wrong'],
    ['key AIzaSyA1234567890abcdefghij is wrong', 'key [redacted] is wrong'],
    ['the provider rejected LLM_API_KEY (401)', 'the provider rejected LLM_API_KEY (401)'],
  ])('%p -> %p', (value, redacted) => expect(redactCredentials(value)).toBe(redacted));
});
