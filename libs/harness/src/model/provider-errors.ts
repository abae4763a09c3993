import type { AIMessage } from '@langchain/core/messages';
import { ModelCallFailed, ModelTransportCode, RetryHint } from '../run/harness-errors';

/**
 * The one classification of what a provider call ended in (docs/provider-failures.md). Every failure
 * the provider client raised gets exactly one class, a default included, and every class says whether
 * another attempt can change it and who can act. Errors the service raised itself are not classified
 * here (classifyProviderError returns null): they are never recorded as the provider's.
 */

/** Who can make the next call succeed; the chat's user text and the doctor's advice follow it. */
export type ProviderRemedy = 'WAIT' | 'OPERATOR' | 'REPHRASE' | 'SHORTEN';

export interface ProviderFailureClass {
  readonly transient: boolean;
  readonly remedy: ProviderRemedy;
}

export const PROVIDER_FAILURE_CLASSES: Readonly<Record<ModelTransportCode, ProviderFailureClass>> = {
  MODEL_TIMEOUT: { transient: true, remedy: 'WAIT' },
  MODEL_RATE_LIMITED: { transient: true, remedy: 'WAIT' },
  MODEL_UNAVAILABLE: { transient: true, remedy: 'WAIT' },
  MODEL_UNREACHABLE: { transient: true, remedy: 'WAIT' },
  MODEL_AUTH_FAILED: { transient: false, remedy: 'OPERATOR' },
  MODEL_QUOTA_EXHAUSTED: { transient: false, remedy: 'OPERATOR' },
  MODEL_NOT_FOUND: { transient: false, remedy: 'OPERATOR' },
  MODEL_ENDPOINT_INVALID: { transient: false, remedy: 'OPERATOR' },
  MODEL_TLS_FAILED: { transient: false, remedy: 'OPERATOR' },
  MODEL_CONTENT_FILTERED: { transient: false, remedy: 'REPHRASE' },
  MODEL_CONTEXT_TOO_LONG: { transient: false, remedy: 'SHORTEN' },
  MODEL_REQUEST_REJECTED: { transient: false, remedy: 'OPERATOR' },
  MODEL_BAD_RESPONSE: { transient: false, remedy: 'OPERATOR' },
};

const MAX_MESSAGE = 300;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null && key in value
    ? (value as Record<string, unknown>)[key]
    : undefined;

const text = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;

/** The error and its causes, outermost first (LangChain and undici wrap the real reason). */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = error; at !== undefined && at !== null && chain.length < 6; at = field(at, 'cause')) {
    if (chain.includes(at)) break;
    chain.push(at);
  }
  return chain;
}

/**
 * The HTTP status the provider answered with: on the error or a cause (the SDK's APIError; LangChain's
 * ContextOverflowError keeps it on its cause). Undefined when no HTTP answer came.
 */
function httpStatusOf(error: unknown): number | undefined {
  for (const item of causeChain(error)) {
    const status = field(item, 'status');
    if (typeof status === 'number' && Number.isInteger(status) && status >= 100) return status;
  }
  return undefined;
}

/** A response header, from the SDK's `Headers` or a plain record (any case). */
function headerOf(error: unknown, name: string): string | undefined {
  for (const item of causeChain(error)) {
    const headers = field(item, 'headers');
    if (headers instanceof Headers) {
      const value = headers.get(name);
      if (value !== null) return value;
    } else if (isRecord(headers)) {
      const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
      const value = key === undefined ? undefined : headers[key];
      if (typeof value === 'string') return value;
    }
  }
  return undefined;
}

/** Retry-After as delta-seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names a weekday and month; bare numbers like "-1" would parse as a year.
  const at = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const DURATION =
  /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/;

/**
 * An `x-ratelimit-reset-*` value in ms from `now`: a Go-style duration ("1s", "6m0s", "20ms", OpenAI and
 * Groq), plain seconds ("0.5"), epoch seconds, or a date. Undefined when unreadable.
 */
export function rateLimitResetMs(value: string | undefined, now = Date.now()): number | undefined {
  const trimmed = value?.trim() ?? '';
  if (trimmed === '') return undefined;
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) {
    const seconds = Number(trimmed);
    // Epoch seconds, not a wait: a wait of 30 years is not meant.
    return seconds > 1e9 ? Math.max(0, seconds * 1000 - now) : Math.ceil(seconds * 1000);
  }
  const duration = DURATION.exec(trimmed);
  if (duration && duration.slice(1).some((part) => part !== undefined)) {
    const [h, m, s, ms] = duration.slice(1).map((part) => Number(part ?? 0));
    return Math.ceil(((h * 60 + m) * 60 + s) * 1000 + ms);
  }
  const at = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long the provider asked the client to wait, by the first header that says it: `retry-after-ms`
 * (OpenAI, Azure), `Retry-After`, then for a rate limit the `x-ratelimit-reset-*` of the limit that is
 * used up (both, when the headers do not say which, the later one).
 */
export function providerWaitMs(error: unknown, rateLimited: boolean, now = Date.now()): number | undefined {
  const precise = headerOf(error, 'retry-after-ms')?.trim();
  if (precise && /^\d+(?:\.\d+)?$/.test(precise)) return Math.ceil(Number(precise));
  const retryAfter = retryAfterMs(headerOf(error, 'retry-after'), now);
  if (retryAfter !== undefined || !rateLimited) return retryAfter;
  const resets = (['requests', 'tokens'] as const).flatMap((limit) => {
    const wait = rateLimitResetMs(headerOf(error, `x-ratelimit-reset-${limit}`), now);
    const remaining = headerOf(error, `x-ratelimit-remaining-${limit}`)?.trim();
    return wait === undefined ? [] : [{ wait, exhausted: remaining === '0' }];
  });
  const single = rateLimitResetMs(headerOf(error, 'x-ratelimit-reset'), now);
  const exhausted = resets.filter((reset) => reset.exhausted);
  const candidates = (exhausted.length > 0 ? exhausted : resets).map((reset) => reset.wait);
  if (single !== undefined) candidates.push(single);
  return candidates.length > 0 ? Math.max(...candidates) : undefined;
}

/** The provider's error, normalised from the body shapes providers use. */
export interface ProviderErrorBody {
  message: string | null;
  type: string | null;
  code: string | null;
  /** A status the body itself names (an HTTP-200 error body, Gemini's `code`); null when none. */
  status: number | null;
  /** Machine reasons beside the message (Gemini's `details[].reason`, OpenRouter's upstream text). */
  extra: string[];
}

function parsedJson(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The error object inside a provider's body, whichever shape it comes in: `{"error":{…}}` (OpenAI and
 * most), `{"error":"text"}` (TGI, some gateways), a top-level `{"message":…}` (vLLM, Ollama), a JSON
 * array of those (Gemini's OpenAI endpoint), or a JSON text of any of them.
 */
function errorObjectOf(body: unknown, depth = 0): Record<string, unknown> | undefined {
  if (depth > 3) return undefined;
  if (typeof body === 'string') {
    const parsed = parsedJson(body);
    return parsed === undefined ? { message: body } : errorObjectOf(parsed, depth + 1);
  }
  if (Array.isArray(body)) return body.length > 0 ? errorObjectOf(body[0], depth + 1) : undefined;
  if (!isRecord(body)) return undefined;
  const inner = body.error;
  if (isRecord(inner)) return inner;
  if (typeof inner === 'string')
    return { message: inner, type: body.error_type ?? body.type, code: body.code ?? body.error_code };
  if (typeof body.message === 'string' || typeof body.detail === 'string')
    return { ...body, message: body.message ?? body.detail };
  return undefined;
}

export function providerErrorBody(body: unknown): ProviderErrorBody | undefined {
  const error = errorObjectOf(body);
  if (!error) return undefined;
  const extra: string[] = [];
  for (const detail of Array.isArray(error.details) ? error.details : []) {
    const reason = text(field(detail, 'reason'));
    if (reason) extra.push(reason);
  }
  // OpenRouter puts the upstream provider's own answer under metadata.raw (often a JSON text).
  const raw = field(field(error, 'metadata'), 'raw');
  if (raw !== undefined) {
    const upstream = errorObjectOf(raw);
    const rawText = text(upstream?.message) ?? (typeof raw === 'string' ? raw : JSON.stringify(raw));
    if (rawText) extra.push(rawText);
  }
  const message = text(error.message) ?? (isRecord(error.message) ? JSON.stringify(error.message) : null);
  const code = text(error.code);
  const numeric = Number(error.code ?? error.status);
  return {
    message,
    type: text(error.type) ?? text(error.status),
    code,
    status: Number.isInteger(numeric) && numeric >= 100 && numeric <= 599 ? numeric : null,
    extra,
  };
}

/** The body a failed call came back with: captured whole by the provider client, else the SDK's `error`. */
function bodyOfError(error: unknown): ProviderErrorBody | undefined {
  for (const item of causeChain(error)) {
    const body = providerErrorBody(field(item, 'providerBody') ?? field(item, 'error'));
    if (body) return body;
  }
  return undefined;
}

/**
 * An HTTP 200 whose body is an error, not a completion (gateways such as OpenRouter and LiteLLM answer
 * so); thrown by the provider client instead of the library's TypeError on the missing `choices`.
 */
export class ProviderBodyError extends Error {
  readonly status = 200;

  constructor(readonly providerBody: unknown) {
    super('the provider answered HTTP 200 without a completion');
    this.name = 'ProviderBodyError';
  }
}

/** Node's error codes of a certificate the client does not trust, or a TLS handshake that failed. */
const TLS_CODE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|TLS|SSL|EPROTO|HOSTNAME_MISMATCH/;

/** Node's socket and DNS codes (ECONNREFUSED, EAI_AGAIN) and undici's (UND_ERR_SOCKET). */
const NETWORK_CODE = /^(E[A-Z]+(_[A-Z]+)?|UND_ERR_[A-Z_]+)$/;

/** The Node / undici error code of a failed connection, from the error or its causes. */
export function networkErrorCode(error: unknown): string | undefined {
  for (const item of causeChain(error)) {
    const code = field(item, 'code');
    if (typeof code === 'string' && (NETWORK_CODE.test(code) || TLS_CODE.test(code))) return code;
  }
  return undefined;
}

const CONTEXT_LENGTH =
  /context[_ ]length|context[_ ]window|maximum context|too many tokens|prompt is too long|input tokens exceed|reduce the length|token limit|input is too long|max_tokens.*too large/;
const CONTENT_FILTER =
  /content[_ ]?filter|content[_ ]policy|content management policy|data_inspection_failed|inappropriate content|content exists risk|responsible ?ai|safety system|moderation|flagged|prohibited_content/;
const QUOTA =
  /insufficient[_ ]quota|insufficient[_ ]balance|insufficient account balance|balance is insufficient|billing|credits?\b|payment required|arrearage|exceeded your current quota|quota[_ ]exhausted/;
const AUTH =
  /invalid[_ ]api[_ ]key|api[_ ]key[_ ]invalid|api key not valid|incorrect api key|invalid[_ ]key|authentication|unauthori[sz]ed|invalid token|access denied|permission denied|forbidden|invalidauthenticationtoken|access[_ ]key/;
const MODEL =
  /model[_ ]not[_ ]found|unknown model|no such model|model.{0,80}(does not exist|not found|not exist|is not supported|unsupported)|invalid model|model_not_supported|deploymentnotfound|not a valid model/;

/** Lower-case text of everything the provider said, for the class patterns. */
export function signalsOf(body: ProviderErrorBody | undefined, error: unknown): string {
  // LangChain appends a troubleshooting URL naming its own guess (".../errors/MODEL_NOT_FOUND/" for any 404).
  const own = error instanceof Error ? error.message.split(/\s*Troubleshooting URL:/)[0] : '';
  return [body?.type, body?.code, body?.message, ...(body?.extra ?? []), own]
    .filter((part) => typeof part === 'string')
    .join(' ')
    .toLowerCase();
}

/** The class of an HTTP answer (or an HTTP-200 error body) by what the provider said, then its status. */
export function classOfAnswer(status: number, signals: string): ModelTransportCode {
  if (status >= 500) return CONTEXT_LENGTH.test(signals) ? 'MODEL_CONTEXT_TOO_LONG' : 'MODEL_UNAVAILABLE';
  if (status < 400) return 'MODEL_BAD_RESPONSE';
  if (status === 413 || CONTEXT_LENGTH.test(signals)) return 'MODEL_CONTEXT_TOO_LONG';
  if (CONTENT_FILTER.test(signals)) return 'MODEL_CONTENT_FILTERED';
  if (status === 402 || QUOTA.test(signals)) return 'MODEL_QUOTA_EXHAUSTED';
  if (status === 401 || status === 403 || AUTH.test(signals)) return 'MODEL_AUTH_FAILED';
  if (MODEL.test(signals)) return 'MODEL_NOT_FOUND';
  if (status === 404 || status === 405) return 'MODEL_ENDPOINT_INVALID';
  if (status === 429) return 'MODEL_RATE_LIMITED';
  if (status === 408) return 'MODEL_TIMEOUT';
  if (status === 409 || status === 425) return 'MODEL_UNAVAILABLE';
  return 'MODEL_REQUEST_REJECTED';
}

const TIMEOUT_NAMES = new Set(['APIConnectionTimeoutError', 'TimeoutError']);
const CONNECTION_NAMES = new Set(['APIConnectionError', 'FetchError']);

export interface ProviderFailureInfo {
  code: ModelTransportCode;
  /** The HTTP status the provider answered with (200 for an error body), null without an answer. */
  httpStatus: number | null;
  /** The Node / undici code of a failed connection, null otherwise. */
  networkCode: string | null;
}

/**
 * The class of what the provider client threw, or null when it is not a provider outcome at all (the
 * service's own error, e.g. a message it could not serialise): that is never the provider's fault.
 */
export function providerFailureOf(error: unknown): ProviderFailureInfo | null {
  const status = httpStatusOf(error);
  const body = bodyOfError(error);
  if (status !== undefined) {
    // An HTTP-200 error body: the status it names (if any) is the one that counts.
    const effective = status < 300 ? (body?.status ?? status) : status;
    return { code: classOfAnswer(effective, signalsOf(body, error)), httpStatus: status, networkCode: null };
  }
  const networkCode = networkErrorCode(error) ?? null;
  if (networkCode !== null && TLS_CODE.test(networkCode))
    return { code: 'MODEL_TLS_FAILED', httpStatus: null, networkCode };
  // The SDK's classes keep the name "Error": their constructor names them.
  const names = causeChain(error).flatMap((item) =>
    item instanceof Error ? [item.name, item.constructor.name] : [],
  );
  if (names.some((name) => TIMEOUT_NAMES.has(name)) || networkCode === 'UND_ERR_HEADERS_TIMEOUT')
    return { code: 'MODEL_TIMEOUT', httpStatus: null, networkCode };
  // undici's "fetch failed" (the SDK re-creates it as a plain Error named TypeError).
  const fetchFailed = causeChain(error).some(
    (item) => item instanceof Error && item.name === 'TypeError' && item.message === 'fetch failed',
  );
  if (networkCode !== null || fetchFailed || names.some((name) => CONNECTION_NAMES.has(name)))
    return { code: 'MODEL_UNREACHABLE', httpStatus: null, networkCode };
  return null;
}

/**
 * Maps what the provider client threw to a safe, stable failure (the provider's message is dropped;
 * providerErrorDetails reads it for the log), or null for an error that is the service's own.
 */
export function classifyProviderError(error: unknown, now = Date.now()): ModelCallFailed | null {
  const failure = providerFailureOf(error);
  if (failure === null) return null;
  return failureOf(failure.code, providerWaitMs(error, failure.code === 'MODEL_RATE_LIMITED', now));
}

function failureOf(code: ModelTransportCode, wait?: number): ModelCallFailed {
  const { transient } = PROVIDER_FAILURE_CLASSES[code];
  const hint: RetryHint = transient && wait !== undefined ? { transient, retryAfterMs: wait } : { transient };
  return new ModelCallFailed(code === 'MODEL_TIMEOUT' ? 'TIMEOUT' : 'TRANSPORT', code, hint);
}

/**
 * A completion that came back but is a refusal by the provider, not an answer: stopped by its content
 * filter with nothing written (Azure, OpenAI). Null for every other reply.
 */
export function classifyProviderReply(message: AIMessage): ModelCallFailed | null {
  const finish = message.response_metadata?.finish_reason;
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const empty = content.trim() === '' || content === '[]';
  const noCalls = (message.tool_calls?.length ?? 0) + (message.invalid_tool_calls?.length ?? 0) === 0;
  if (finish === 'content_filter' && empty && noCalls) return failureOf('MODEL_CONTENT_FILTERED');
  return null;
}

/** Removes anything that looks like a credential from a provider message (some echo the key back). */
export function redactCredentials(value: string, secrets: readonly string[] = []): string {
  let out = value;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out
    .replace(/\b(sk|pk|rk|key|ak)[-_][A-Za-z0-9_-]{6,}/gi, '[redacted]')
    .replace(/\bAIza[0-9A-Za-z_-]{20,}/g, '[redacted]')
    .replace(/Bearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/(api[_-]?key["']?\s*[:=]\s*["']?)[^\s"',]+/gi, '$1[redacted]');
}

export interface ProviderErrorDetails {
  status: number | null;
  type: string | null;
  code: string | null;
  message: string | null;
  /** The Node / undici code of a failed connection (ECONNREFUSED, CERT_HAS_EXPIRED, ...). */
  network_code: string | null;
}

/**
 * What the provider said about a failed call, safe for the service log: status, error type/code and
 * its message (from any common body shape, the upstream's own text appended) with credentials redacted
 * and length bounded. Never the request (prompts stay out).
 */
export function providerErrorDetails(error: unknown, secrets: readonly string[] = []): ProviderErrorDetails {
  const status = httpStatusOf(error) ?? null;
  const body = bodyOfError(error);
  const upstream = body?.extra.filter((part) => part !== body.message) ?? [];
  const said = body?.message ?? null;
  const raw =
    said !== null
      ? [said, ...upstream].join(' | ')
      : upstream.length > 0
        ? upstream.join(' | ')
        : status === null && error instanceof Error
          ? error.message
          : null;
  const own = causeChain(error).find((item) => item instanceof Error && field(item, 'code') !== undefined);
  return {
    status,
    type: body?.type ?? text(field(error, 'type')),
    code: body?.code ?? (status === null ? null : text(field(error, 'code'))),
    message: raw === null ? null : redactCredentials(raw, secrets).slice(0, MAX_MESSAGE),
    network_code: status === null ? (networkErrorCode(own ?? error) ?? null) : null,
  };
}
