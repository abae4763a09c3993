import { ModelCallFailed } from '../run/harness-errors';

/** Maps whatever the OpenAI-compatible client threw to a safe, stable failure (the message is dropped). */
export function classifyProviderError(error: unknown): ModelCallFailed {
  const status =
    typeof error === 'object' && error !== null && 'status' in error ? Number(error.status) : NaN;
  if (status === 429) return new ModelCallFailed('TRANSPORT', 'MODEL_RATE_LIMITED');
  if (status >= 500) return new ModelCallFailed('TRANSPORT', 'MODEL_UNAVAILABLE');
  if (status >= 400) return new ModelCallFailed('TRANSPORT', `MODEL_HTTP_${status}`);
  const name = error instanceof Error ? error.name : '';
  if (name === 'APIConnectionTimeoutError' || name === 'TimeoutError')
    return new ModelCallFailed('TIMEOUT', 'MODEL_TIMEOUT');
  return new ModelCallFailed('TRANSPORT', 'MODEL_UNREACHABLE');
}
