import type { NotificationFailure } from '@app/contracts';
import type { DeliveryResult } from '@app/trace';
import { buildRequest, classifyBody } from './formats/vendor-formats';
import type { NotificationMessage } from './notification-message';
import type { NotificationTarget } from './notification-targets';

/**
 * How a delivery is retried: bounded attempts with exponential backoff. This is the service's one retry
 * outside the Harness retry matrix, and it is here on purpose: a notification is sent after the run has
 * ended, with no run, budget or deadline left to govern it, and a chat vendor's webhook that is briefly
 * rate-limited or unavailable would otherwise lose the report for good.
 */
export interface DeliveryPolicy {
  /** NOTIFY_MAX_ATTEMPTS: HTTP requests at most, the first one included. */
  maxAttempts: number;
  /** NOTIFY_BACKOFF_BASE_MS: the wait before the 2nd attempt; doubled for each further one. */
  backoffBaseMs: number;
  /** NOTIFY_BACKOFF_MAX_MS: no wait (a Retry-After included) is longer. */
  backoffMaxMs: number;
  /** NOTIFY_TIMEOUT_MS: one request's limit, answer body included. */
  timeoutMs: number;
}

export interface DeliveryIo {
  fetch: typeof fetch;
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  random(): number;
}

export const SYSTEM_IO: DeliveryIo = {
  fetch: (input, init) => fetch(input, init),
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    }),
  random: () => Math.random(),
};

/** One attempt's class: delivered, worth another attempt, or final. */
type AttemptVerdict =
  | { kind: 'delivered'; httpStatus: number }
  | {
      kind: 'retry' | 'final';
      failure: NotificationFailure;
      httpStatus: number | null;
      vendorCode: number | null;
      retryAfterMs: number | null;
    };

/** Answer bodies are read up to this size: vendors answer a few dozen bytes; more is not a vendor answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends `message` to `target` until it is delivered, a final failure is met, or the attempts are used
 * up. Classified by the answer, not only its status: Feishu, DingTalk and WeCom answer 200 with an error
 * code in the body. 4xx other than 429 and redirects are final (never followed: the URL may carry a
 * credential); 429, 5xx, a vendor's rate-limit code, timeouts and network errors are retried. The
 * request is rebuilt per attempt (signatures carry a timestamp); the idempotency key stays the same.
 */
export async function deliverNotification(
  target: NotificationTarget,
  message: NotificationMessage,
  idempotencyKey: string,
  policy: DeliveryPolicy,
  io: DeliveryIo,
  shutdown: AbortSignal,
): Promise<DeliveryResult> {
  let attempts = 0;
  for (;;) {
    attempts += 1;
    const verdict = await attempt(target, message, idempotencyKey, policy, io, shutdown);
    if (verdict.kind === 'delivered') {
      return { status: 'DELIVERED', attempts, lastHttpStatus: verdict.httpStatus };
    }
    if (verdict.kind === 'final' || attempts >= policy.maxAttempts || shutdown.aborted) {
      return {
        status: 'FAILED',
        failure: shutdown.aborted && verdict.kind === 'retry' ? 'SHUTDOWN' : verdict.failure,
        attempts,
        lastHttpStatus: verdict.httpStatus,
        vendorCode: verdict.vendorCode,
      };
    }
    await io.sleep(backoffMs(attempts, policy, verdict.retryAfterMs, io.random()), shutdown);
    if (shutdown.aborted) {
      return {
        status: 'FAILED',
        failure: 'SHUTDOWN',
        attempts,
        lastHttpStatus: verdict.httpStatus,
        vendorCode: verdict.vendorCode,
      };
    }
  }
}

/** Slack beyond the policy's longest try before a SENDING claim counts as left: clocks, a slow record. */
const STALE_CLAIM_MARGIN_MS = 60_000;

/**
 * How long a live replica can hold a claim: every attempt timing out after the longest wait, plus a
 * margin. A SENDING row older than this was left by a replica that stopped (docs/notifications.md).
 */
export function staleClaimMs(policy: DeliveryPolicy): number {
  return (
    policy.maxAttempts * policy.timeoutMs +
    (policy.maxAttempts - 1) * policy.backoffMaxMs +
    STALE_CLAIM_MARGIN_MS
  );
}

/**
 * The wait after attempt `attempts`: base × 2^(attempts-1), capped, with equal jitter (half fixed, half
 * random) so replicas' retries spread out; a Retry-After the target sent is honoured up to the cap.
 */
export function backoffMs(
  attempts: number,
  policy: DeliveryPolicy,
  retryAfterMs: number | null,
  random: number,
): number {
  const exponential = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** (attempts - 1));
  const jittered = exponential / 2 + (exponential / 2) * random;
  return Math.round(
    retryAfterMs === null ? jittered : Math.min(policy.backoffMaxMs, Math.max(retryAfterMs, jittered)),
  );
}

async function attempt(
  target: NotificationTarget,
  message: NotificationMessage,
  idempotencyKey: string,
  policy: DeliveryPolicy,
  io: DeliveryIo,
  shutdown: AbortSignal,
): Promise<AttemptVerdict> {
  const request = buildRequest(target, message, { nowMs: io.now(), idempotencyKey });
  const timeout = AbortSignal.timeout(policy.timeoutMs);
  try {
    const response = await io.fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.any([timeout, shutdown]),
    });
    const status = response.status;
    const text = await readBounded(response);
    if (status >= 200 && status < 300) {
      const body = classifyBody(target, text);
      if (body.delivered) return { kind: 'delivered', httpStatus: status };
      return {
        kind: body.failure === 'RATE_LIMITED' ? 'retry' : 'final',
        failure: body.failure,
        httpStatus: status,
        vendorCode: body.vendorCode,
        retryAfterMs: null,
      };
    }
    const failure = { httpStatus: status, vendorCode: null };
    if (status === 429) {
      return { kind: 'retry', failure: 'RATE_LIMITED', ...failure, retryAfterMs: retryAfterOf(response) };
    }
    if (status >= 500) return { kind: 'retry', failure: 'SERVER_ERROR', ...failure, retryAfterMs: null };
    if (status >= 300 && status < 400)
      return { kind: 'final', failure: 'REDIRECTED', ...failure, retryAfterMs: null };
    return { kind: 'final', failure: 'REJECTED', ...failure, retryAfterMs: null };
  } catch {
    const failure: NotificationFailure = shutdown.aborted
      ? 'SHUTDOWN'
      : timeout.aborted
        ? 'TIMEOUT'
        : 'NETWORK_ERROR';
    return {
      kind: failure === 'SHUTDOWN' ? 'final' : 'retry',
      failure,
      httpStatus: null,
      vendorCode: null,
      retryAfterMs: null,
    };
  }
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES));
}

/** Retry-After in seconds (the form vendors send); an HTTP date or anything else is ignored. */
function retryAfterOf(response: Response): number | null {
  const value = response.headers.get('retry-after');
  return value !== null && /^\d{1,6}$/.test(value.trim()) ? Number(value.trim()) * 1000 : null;
}
