import { ModelCallFailed, ModelHttpCode } from '../run/harness-errors';

/** 4xx answers another attempt can change (timeout, conflict, rate limit); every other 4xx is final. */
const TRANSIENT_4XX = new Set([408, 409, 429]);
const MAX_MESSAGE = 300;

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null && key in value
    ? (value as Record<string, unknown>)[key]
    : undefined;

const statusOf = (error: unknown) => Number(field(error, 'status') ?? NaN);

function headerOf(error: unknown, name: string): string | undefined {
  const headers = field(error, 'headers');
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = field(headers, name);
  return typeof value === 'string' ? value : undefined;
}

/** Retry-After as delta-seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names a weekday and month; bare numbers like "-1" would parse as a year.
  const at = /[a-z]/i.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Maps whatever the OpenAI-compatible client threw to a safe, stable failure (the message is dropped). */
export function classifyProviderError(error: unknown): ModelCallFailed {
  const status = statusOf(error);
  const retryAfter = retryAfterMs(headerOf(error, 'retry-after'));
  const hint = { transient: !(status >= 400 && status < 500) || TRANSIENT_4XX.has(status) };
  const withWait = retryAfter === undefined ? hint : { ...hint, retryAfterMs: retryAfter };
  if (status === 429) return new ModelCallFailed('TRANSPORT', 'MODEL_RATE_LIMITED', withWait);
  if (status >= 500) return new ModelCallFailed('TRANSPORT', 'MODEL_UNAVAILABLE', withWait);
  // 429 and >= 500 are handled above, so this is a 4xx: one of the closed MODEL_HTTP_4xx codes.
  if (status >= 400)
    return new ModelCallFailed('TRANSPORT', `MODEL_HTTP_${status}` as ModelHttpCode, withWait);
  const name = error instanceof Error ? error.name : '';
  if (name === 'APIConnectionTimeoutError' || name === 'TimeoutError')
    return new ModelCallFailed('TIMEOUT', 'MODEL_TIMEOUT');
  return new ModelCallFailed('TRANSPORT', 'MODEL_UNREACHABLE');
}

/** Removes anything that looks like a credential from a provider message (some echo the key back). */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out
    .replace(/\b(sk|pk|rk|key|ak)[-_][A-Za-z0-9_-]{6,}/gi, '[redacted]')
    .replace(/Bearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/(api[_-]?key["']?\s*[:=]\s*["']?)[^\s"',]+/gi, '$1[redacted]');
}

export interface ProviderErrorDetails {
  status: number | null;
  type: string | null;
  code: string | null;
  message: string | null;
}

/**
 * What the provider said about a failed call, safe for the service log: status, error type/code and
 * its message with credentials redacted and length bounded. Never the request (prompts stay out).
 */
export function providerErrorDetails(error: unknown, secrets: readonly string[] = []): ProviderErrorDetails {
  const status = statusOf(error);
  const body = field(error, 'error');
  const text = (value: unknown) =>
    typeof value === 'string' || typeof value === 'number' ? String(value) : null;
  const raw = text(field(body, 'message')) ?? (status ? null : error instanceof Error ? error.message : null);
  return {
    status: Number.isNaN(status) ? null : status,
    type: text(field(body, 'type')) ?? text(field(error, 'type')),
    code: text(field(body, 'code')) ?? text(field(error, 'code')),
    message: raw === null ? null : redactCredentials(raw, secrets).slice(0, MAX_MESSAGE),
  };
}
