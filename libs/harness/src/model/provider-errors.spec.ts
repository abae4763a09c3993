import {
  classifyProviderError,
  providerErrorDetails,
  redactCredentials,
  retryAfterMs,
} from './provider-errors';

const apiError = (status: number, headers: Record<string, string> = {}, error: object = {}) =>
  Object.assign(new Error(`${status} x`), { status, headers: new Headers(headers), error });

describe('classifyProviderError', () => {
  it.each([
    [{ status: 429 }, 'TRANSPORT', 'MODEL_RATE_LIMITED'],
    [{ status: 500 }, 'TRANSPORT', 'MODEL_UNAVAILABLE'],
    [{ status: 503 }, 'TRANSPORT', 'MODEL_UNAVAILABLE'],
    [{ status: 400 }, 'TRANSPORT', 'MODEL_HTTP_400'],
    [
      Object.assign(new Error('Request timed out.'), { name: 'APIConnectionTimeoutError' }),
      'TIMEOUT',
      'MODEL_TIMEOUT',
    ],
    [new TypeError('fetch failed'), 'TRANSPORT', 'MODEL_UNREACHABLE'],
  ])('maps %p to %s/%s', (error, kind, code) => {
    expect(classifyProviderError(error)).toMatchObject({ kind, code });
  });

  it('drops the provider message', () => {
    expect(classifyProviderError({ status: 500, message: 'secret upstream detail' }).message).not.toContain(
      'secret',
    );
  });

  it.each([
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [422, false],
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
  ])('HTTP %p is transient: %p', (status, transient) => {
    expect(classifyProviderError({ status }).hint.transient).toBe(transient);
  });

  it('carries Retry-After from the response headers', () => {
    expect(classifyProviderError(apiError(429, { 'retry-after': '3' })).hint.retryAfterMs).toBe(3000);
    expect(classifyProviderError(apiError(429)).hint.retryAfterMs).toBeUndefined();
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

describe('providerErrorDetails', () => {
  it('keeps status, type, code and message with the key redacted', () => {
    const error = apiError(
      401,
      {},
      {
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        message: 'Incorrect API key provided: sk-abc123456789',
      },
    );
    expect(providerErrorDetails(error, ['sk-abc123456789'])).toEqual({
      status: 401,
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      message: 'Incorrect API key provided: [redacted]',
    });
  });

  it('bounds the message length', () => {
    expect(providerErrorDetails(apiError(400, {}, { message: 'x'.repeat(5000) })).message).toHaveLength(300);
  });
});

describe('redactCredentials', () => {
  it.each([
    ['Authorization: Bearer abc.def', 'Authorization: Bearer [redacted]'],
    ['api_key=abcdef123', 'api_key=[redacted]'],
    ['key sk-proj-ABCDEFGH1234 is wrong', 'key [redacted] is wrong'],
    ['the provider rejected LLM_API_KEY (401)', 'the provider rejected LLM_API_KEY (401)'],
  ])('%p -> %p', (text, redacted) => expect(redactCredentials(text)).toBe(redacted));
});
