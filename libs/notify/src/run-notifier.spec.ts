import { Logger } from '@nestjs/common';
import type {
  DeliveryClaim,
  DeliveryResult,
  DiagnosisRun,
  NotificationDeliveryRepository,
  RunRepository,
} from '@app/trace';
import type { DeliveryIo } from './notification-delivery';
import type { FinishedRunSummary } from './notification-message';
import { loadNotifyConfig } from './notify.config';
import { ServiceMetrics } from '@app/metrics';
import { idempotencyKeyOf, RunNotifier } from './run-notifier';

const SECRET_URL = 'https://hooks.slack.com/services/T000/B000/SECRETPART';
const SUMMARY: FinishedRunSummary = {
  runId: 'run-1',
  sessionId: 'session-1',
  trigger: 'chat',
  targets: ['ops-slack', 'ops-wecom'],
  alertLabels: null,
};

/** The claim table as MySQL keeps it: the first claim of a (run, target) wins. */
class MemoryDeliveries {
  readonly rows = new Map<string, { claim: DeliveryClaim; result: DeliveryResult | null }>();
  failClaims = false;
  async claim(claim: DeliveryClaim): Promise<boolean> {
    if (this.failClaims) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const key = `${claim.runId}/${claim.targetName}`;
    if (this.rows.has(key)) return false;
    this.rows.set(key, { claim, result: null });
    return true;
  }
  async finish(runId: string, targetName: string, result: DeliveryResult): Promise<void> {
    const row = this.rows.get(`${runId}/${targetName}`);
    if (row) row.result = result;
  }
}

function setup(run: Partial<DiagnosisRun> | null, answer: (url: string) => Response) {
  const config = {
    ...loadNotifyConfig({}),
    publicBaseUrl: 'https://ui.example.com',
    targets: [
      { name: 'ops-slack', kind: 'slack' as const, url: SECRET_URL },
      { name: 'ops-wecom', kind: 'wecom' as const, url: 'https://qyapi.example.com/send?key=SECRETKEY' },
    ],
    policy: { maxAttempts: 2, backoffBaseMs: 10, backoffMaxMs: 10, timeoutMs: 1000 },
  };
  const runs = {
    findRun: async () =>
      run === null
        ? null
        : ({ runId: 'run-1', sessionId: 'session-1', conclusion: null, ...run } as DiagnosisRun),
  } as unknown as RunRepository;
  const deliveries = new MemoryDeliveries();
  const sent: string[] = [];
  const io: DeliveryIo = {
    now: () => 1_700_000_000_000,
    random: () => 0,
    sleep: async () => undefined,
    fetch: async (url) => {
      sent.push(String(url));
      return answer(String(url));
    },
  };
  const metrics = new ServiceMetrics();
  const notifier = new RunNotifier(
    config,
    runs,
    deliveries as unknown as NotificationDeliveryRepository,
    metrics,
    io,
  );
  return { notifier, deliveries, sent, metrics };
}

describe('RunNotifier', () => {
  let logged: string[];
  beforeEach(() => {
    logged = [];
    const record = (message: unknown) => {
      logged.push(String(message));
    };
    jest.spyOn(Logger.prototype, 'log').mockImplementation(record);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(record);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(record);
  });
  afterEach(() => jest.restoreAllMocks());

  it('delivers to the named targets and records each result; a failure is logged by target and reason only', async () => {
    const { notifier, deliveries, sent, metrics } = setup(
      { status: 'SUCCESS', conclusion: 'pool exhausted' },
      (url) =>
        url.includes('slack')
          ? new Response('ok')
          : new Response('{"errcode":93000,"errmsg":"invalid webhook url"}'),
    );
    notifier.notifyRunFinished(SUMMARY);
    await notifier.settled();
    expect(sent).toHaveLength(2);
    expect(deliveries.rows.get('run-1/ops-slack')?.result).toEqual({
      status: 'DELIVERED',
      attempts: 1,
      lastHttpStatus: 200,
    });
    expect(deliveries.rows.get('run-1/ops-wecom')?.result).toMatchObject({
      status: 'FAILED',
      failure: 'VENDOR_ERROR',
      vendorCode: 93000,
    });
    expect(logged).toContain(
      'notification of run run-1 to target "ops-wecom" (wecom): failed (VENDOR_ERROR) after 1 attempt(s), last HTTP status 200, vendor code 93000',
    );
    expect(logged.join('\n')).not.toMatch(/SECRET|hooks\.slack|qyapi/);
    const exposition = await metrics.registry.metrics();
    expect(exposition).toContain('superbiz_notifications_delivered_total{target_kind="slack"} 1');
    expect(exposition).toContain(
      'superbiz_notifications_failed_total{target_kind="wecom",reason="VENDOR_ERROR"} 1',
    );
  });

  it('a (run, target) already claimed is never sent again', async () => {
    const { notifier, sent } = setup({ status: 'SUCCESS', conclusion: 'x' }, () => new Response('ok'));
    notifier.notifyRunFinished({ ...SUMMARY, targets: ['ops-slack'] });
    notifier.notifyRunFinished({ ...SUMMARY, targets: ['ops-slack'] });
    await notifier.settled();
    expect(sent).toHaveLength(1);
  });

  it('sends nothing when the claim cannot be stored', async () => {
    const { notifier, deliveries, sent } = setup(
      { status: 'SUCCESS', conclusion: 'x' },
      () => new Response('ok'),
    );
    deliveries.failClaims = true;
    notifier.notifyRunFinished(SUMMARY);
    await notifier.settled();
    expect(sent).toEqual([]);
    expect(
      logged.some((line) => line.includes('"ops-slack" (slack): not sent, its claim could not be stored')),
    ).toBe(true);
  });

  it('a run still RUNNING is recorded RUN_NOT_FINISHED and sent nowhere', async () => {
    const { notifier, deliveries, sent } = setup({ status: 'RUNNING' }, () => new Response('ok'));
    notifier.notifyRunFinished(SUMMARY);
    await notifier.settled();
    expect(sent).toEqual([]);
    expect(deliveries.rows.get('run-1/ops-slack')?.result).toMatchObject({
      status: 'FAILED',
      failure: 'RUN_NOT_FINISHED',
      attempts: 0,
    });
  });

  it('an unknown target name is logged and skipped; null means every target', async () => {
    const { notifier, sent } = setup({ status: 'FALLBACK' }, () => new Response('ok'));
    expect(notifier.unknownTargets(['ops-slack', 'nope'])).toEqual(['nope']);
    notifier.notifyRunFinished({ ...SUMMARY, targets: ['nope', 'ops-slack'] });
    await notifier.settled();
    expect(sent).toHaveLength(1);
    expect(logged.some((line) => line.includes('unknown notification targets (nope)'))).toBe(true);
    const all = setup({ status: 'FALLBACK' }, () => new Response('ok'));
    all.notifier.notifyRunFinished({ ...SUMMARY, targets: null });
    await all.notifier.settled();
    expect(all.sent).toHaveLength(2);
  });

  it('returns before anything is sent', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { notifier, sent } = setup({ status: 'SUCCESS', conclusion: 'x' }, () => new Response('ok'));
    const findRun = (notifier as unknown as { runs: { findRun: () => Promise<unknown> } }).runs;
    const original = findRun.findRun;
    findRun.findRun = async () => {
      await gate;
      return original();
    };
    notifier.notifyRunFinished(SUMMARY);
    expect(sent).toEqual([]);
    release();
    await notifier.settled();
    expect(sent).toHaveLength(2);
  });

  it('the idempotency key is stable per (run, target) and differs between them', () => {
    expect(idempotencyKeyOf('run-1', 'a')).toBe(idempotencyKeyOf('run-1', 'a'));
    expect(idempotencyKeyOf('run-1', 'a')).not.toBe(idempotencyKeyOf('run-1', 'b'));
    expect(idempotencyKeyOf('run-1', 'a')).toMatch(/^[0-9a-f]{32}$/);
  });
});
