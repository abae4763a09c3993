import { classifyProviderError } from './provider-errors';

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
});
