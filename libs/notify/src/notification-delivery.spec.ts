import type { NotificationMessage } from './notification-message';
import {
  backoffMs,
  deliverNotification,
  DeliveryIo,
  DeliveryPolicy,
  staleClaimMs,
} from './notification-delivery';
import type { NotificationTarget } from './notification-targets';

const POLICY: DeliveryPolicy = { maxAttempts: 4, backoffBaseMs: 100, backoffMaxMs: 1000, timeoutMs: 5000 };
const MESSAGE: NotificationMessage = {
  runId: 'run-1',
  sessionId: 'session-1',
  trigger: 'chat',
  outcome: 'SUCCESS',
  released: true,
  title: 't',
  text: 'conclusion',
  reason: null,
  alertLabels: null,
  runUrl: 'https://ui.example.com/#/runs/session-1/run-1',
};
const WEBHOOK: NotificationTarget = {
  name: 'hook',
  kind: 'webhook',
  url: 'https://hooks.example.com/in',
  secret: null,
};
const WECOM: NotificationTarget = {
  name: 'wecom',
  kind: 'wecom',
  url: 'https://qyapi.example.com/send?key=k',
};

type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'network' | 'timeout';

/** Answers in order; records each request's idempotency key and the waits between attempts. */
function scriptedIo(answers: Answer[]) {
  const keys: (string | null)[] = [];
  const waits: number[] = [];
  const io: DeliveryIo = {
    now: () => 1_700_000_000_000,
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms);
    },
    fetch: async (_url, init) => {
      keys.push(new Headers(init?.headers).get('idempotency-key'));
      expect(init?.redirect).toBe('manual');
      const answer = answers.shift();
      if (answer === undefined) throw new Error('more attempts than scripted');
      if (answer === 'network') throw new TypeError('fetch failed');
      if (answer === 'timeout') {
        // As fetch does when its signal aborts: wait for the abort and reject with it.
        const signal = init?.signal as AbortSignal;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        throw signal.reason;
      }
      return new Response(answer.body ?? null, { status: answer.status, headers: answer.headers });
    },
  };
  return { io, keys, waits };
}

const run = (
  target: NotificationTarget,
  answers: Answer[],
  policy = POLICY,
  shutdown = new AbortController().signal,
) => {
  const scripted = scriptedIo(answers);
  return deliverNotification(target, MESSAGE, 'key-1', policy, scripted.io, shutdown).then((result) => ({
    result,
    ...scripted,
  }));
};

describe('deliverNotification: retried with backoff, classified by status and body', () => {
  it.each<[string, NotificationTarget, Answer[], object]>([
    ['2xx at once', WEBHOOK, [{ status: 204 }], { status: 'DELIVERED', attempts: 1, lastHttpStatus: 204 }],
    [
      '5xx, then delivered',
      WEBHOOK,
      [{ status: 503 }, { status: 500 }, { status: 200 }],
      { status: 'DELIVERED', attempts: 3, lastHttpStatus: 200 },
    ],
    [
      '400 is final',
      WEBHOOK,
      [{ status: 400 }],
      { status: 'FAILED', failure: 'REJECTED', attempts: 1, lastHttpStatus: 400, vendorCode: null },
    ],
    [
      'a redirect is final and never followed',
      WEBHOOK,
      [{ status: 302, headers: { location: 'https://elsewhere.example' } }],
      { status: 'FAILED', failure: 'REDIRECTED', attempts: 1, lastHttpStatus: 302 },
    ],
    [
      '429 every time uses up the attempts',
      WEBHOOK,
      [{ status: 429 }, { status: 429 }, { status: 429 }, { status: 429 }],
      { status: 'FAILED', failure: 'RATE_LIMITED', attempts: 4, lastHttpStatus: 429 },
    ],
    [
      'network errors, then delivered',
      WEBHOOK,
      ['network', 'network', { status: 200 }],
      { status: 'DELIVERED', attempts: 3 },
    ],
    [
      'WeCom: 200 with errcode is a final failure',
      WECOM,
      [{ status: 200, body: '{"errcode":93000,"errmsg":"invalid webhook url"}' }],
      { status: 'FAILED', failure: 'VENDOR_ERROR', attempts: 1, lastHttpStatus: 200, vendorCode: 93000 },
    ],
    [
      'WeCom: its rate-limit errcode is retried',
      WECOM,
      [
        { status: 200, body: '{"errcode":45009,"errmsg":"api freq out of limit"}' },
        { status: 200, body: '{"errcode":0}' },
      ],
      { status: 'DELIVERED', attempts: 2 },
    ],
    [
      'WeCom: 200 with a body that is not its answer is final',
      WECOM,
      [{ status: 200, body: '<html>captive portal</html>' }],
      { status: 'FAILED', failure: 'BAD_RESPONSE', attempts: 1 },
    ],
  ])('%s', async (_name, target, answers, expected) => {
    const { result } = await run(target, answers);
    expect(result).toMatchObject(expected);
  });

  it('sends the same idempotency key on every attempt and backs off exponentially', async () => {
    const { keys, waits } = await run(WEBHOOK, [
      { status: 500 },
      { status: 500 },
      { status: 500 },
      { status: 200 },
    ]);
    expect(keys).toEqual(['key-1', 'key-1', 'key-1', 'key-1']);
    // Equal jitter with random 0.5: three quarters of 100, 200, 400.
    expect(waits).toEqual([75, 150, 300]);
  });

  it('honours a Retry-After up to the cap', async () => {
    const { waits } = await run(WEBHOOK, [
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 429, headers: { 'retry-after': '3600' } },
      { status: 200 },
    ]);
    expect(waits).toEqual([1000, 1000]);
  });

  it('a request that outlives NOTIFY_TIMEOUT_MS is a TIMEOUT', async () => {
    const { result } = await run(WEBHOOK, ['timeout'], { ...POLICY, maxAttempts: 1, timeoutMs: 100 });
    expect(result).toMatchObject({ status: 'FAILED', failure: 'TIMEOUT', lastHttpStatus: null });
  });

  it('stops at shutdown and says so', async () => {
    const shutdown = new AbortController();
    shutdown.abort();
    const { result } = await run(WEBHOOK, [{ status: 503 }], POLICY, shutdown.signal);
    expect(result).toMatchObject({ status: 'FAILED', failure: 'SHUTDOWN', attempts: 1 });
  });
});

describe('backoffMs', () => {
  it.each([
    [1, null, 0, 50],
    [1, null, 1, 100],
    [3, null, 1, 400],
    [10, null, 1, 1000],
    [1, 5000, 0, 1000],
  ])('after attempt %s (Retry-After %s, random %s): %s ms', (attempts, retryAfter, random, expected) => {
    expect(backoffMs(attempts, POLICY, retryAfter, random)).toBe(expected);
  });
});

describe('staleClaimMs: longer than any live delivery can hold its claim', () => {
  it.each([
    [POLICY, 4 * 5000 + 3 * 1000 + 60_000],
    [{ maxAttempts: 4, backoffBaseMs: 1000, backoffMaxMs: 30_000, timeoutMs: 10_000 }, 190_000],
    [{ maxAttempts: 1, backoffBaseMs: 10, backoffMaxMs: 10, timeoutMs: 100 }, 60_100],
  ])('%o: %s ms', (policy, expected) => {
    expect(staleClaimMs(policy)).toBe(expected);
  });

  it('exceeds every wait and timeout a delivery can spend, a Retry-After at the cap included', () => {
    const waits = [1, 2, 3].map((attempts) => backoffMs(attempts, POLICY, 10 ** 9, 1));
    const longest = POLICY.maxAttempts * POLICY.timeoutMs + waits.reduce((sum, wait) => sum + wait, 0);
    expect(staleClaimMs(POLICY)).toBeGreaterThan(longest);
  });
});
