import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { NotificationTrigger } from '@app/contracts';
import { ServiceMetrics } from '@app/metrics';
import {
  describeDatabaseError,
  DeliveryResult,
  NotificationDeliveryRepository,
  ResumableDelivery,
  RunRepository,
  TakeoverAges,
} from '@app/trace';
import { deliverNotification, DeliveryIo, staleClaimMs, SYSTEM_IO } from './notification-delivery';
import { FinishedRunSummary, NotificationMessage, notificationMessageOf } from './notification-message';
import type { NotificationTarget } from './notification-targets';
import { notifyConfig, NotifyConfig } from './notify.config';

/** The DeliveryIo the notifier uses; a provider so a medium test can give it a clock. */
export const DELIVERY_IO = Symbol('DELIVERY_IO');

/**
 * Sends a finished run to its notification targets. `notifyRunFinished` is the one entry point (chat runs
 * that asked for it; alert-started runs through the alert seam): it returns at once and delivers in the
 * background, so a notification never delays or changes a run's terminal state. The text comes from the
 * run's stored terminal row (the released conclusion, or a fixed text), never from the caller. Each (run,
 * target) is claimed in MySQL before anything is sent, so two replicas never both deliver it, and its
 * result is recorded there (the trace API's `notifications`).
 */
@Injectable()
export class RunNotifier implements OnModuleDestroy {
  private readonly logger = new Logger(RunNotifier.name);
  private readonly byName: ReadonlyMap<string, NotificationTarget>;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();

  constructor(
    @Inject(notifyConfig.KEY) private readonly config: NotifyConfig,
    private readonly runs: RunRepository,
    private readonly deliveries: NotificationDeliveryRepository,
    private readonly metrics: ServiceMetrics,
    @Inject(DELIVERY_IO) private readonly io: DeliveryIo = SYSTEM_IO,
  ) {
    this.byName = new Map(config.targets.map((target) => [target.name, target]));
  }

  /** The configured targets' names. */
  get targetNames(): string[] {
    return [...this.byName.keys()];
  }

  /** The longest a claim can be held by a live replica: a SENDING row older than this was left. */
  get staleClaimMs(): number {
    return staleClaimMs(this.config.policy);
  }

  /**
   * Records that a run's end is owed to its targets (OWED rows): an alert-started run's to every configured
   * target, a chat run's to those its request named. A replica that stops before the run ends then leaves
   * the notification to another one's sweep. Never throws: a failure is logged, and the run's own end still
   * claims and sends as usual.
   */
  async owe(runId: string, trigger: NotificationTrigger, names?: readonly string[]): Promise<void> {
    const targets = names ? names.flatMap((name) => this.byName.get(name) ?? []) : [...this.byName.values()];
    if (targets.length === 0) return;
    try {
      await this.deliveries.owe(runId, trigger, targets);
    } catch (error) {
      this.logger.warn(
        `run ${runId}: its notifications could not be recorded as owed (sent at its end, but lost if this replica stops first): ${describeDatabaseError(error)}`,
      );
    }
  }

  /** Of `names`, those that are no configured target (a request naming one is refused with 400). */
  unknownTargets(names: readonly string[]): string[] {
    return names.filter((name) => !this.byName.has(name));
  }

  /** Starts the run's deliveries and returns at once; every failure is logged and recorded, never thrown. */
  notifyRunFinished(run: FinishedRunSummary): void {
    const work = this.deliverAll(run).catch((error: unknown) => {
      this.logger.error(
        `notifications of run ${run.runId} stopped: ${error instanceof Error ? error.name : 'error'}`,
      );
    });
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Resolves when every delivery started so far has ended (its result recorded or logged). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Stops waiting between attempts and in-flight requests; what was not delivered is recorded SHUTDOWN. */
  async onModuleDestroy(): Promise<void> {
    this.shutdown.abort();
    await this.settled();
  }

  private async deliverAll(summary: FinishedRunSummary): Promise<void> {
    const targets = this.targetsOf(summary);
    if (targets.length === 0) return;
    // Unreachable by configuration (a targets file requires it); said, not silently skipped.
    if (this.config.publicBaseUrl === null) {
      this.logger.error(`run ${summary.runId} not notified: NOTIFY_PUBLIC_BASE_URL is not set`);
      return;
    }
    let message: NotificationMessage | null;
    try {
      const run = await this.runs.findRun(summary.runId);
      if (!run) {
        this.logger.error(`run ${summary.runId} to notify about is not in the journal; nothing sent`);
        return;
      }
      message = notificationMessageOf(run, summary, this.config.publicBaseUrl);
    } catch (error) {
      this.logger.error(
        `run ${summary.runId} could not be read to notify about it: ${describeDatabaseError(error)}`,
      );
      return;
    }
    await Promise.all(targets.map((target) => this.deliverOne(summary, target, message)));
  }

  private targetsOf(summary: FinishedRunSummary): NotificationTarget[] {
    if (summary.targets === null) return [...this.byName.values()];
    const unknown = this.unknownTargets(summary.targets);
    if (unknown.length > 0) {
      this.logger.error(
        `run ${summary.runId} names unknown notification targets (${unknown.join(', ')}); not sent to them`,
      );
    }
    return [...new Set(summary.targets)].flatMap((name) => this.byName.get(name) ?? []);
  }

  private async deliverOne(
    summary: FinishedRunSummary,
    target: NotificationTarget,
    message: NotificationMessage | null,
  ): Promise<void> {
    const where = whereOf(summary.runId, target);
    try {
      const claimed = await this.deliveries.claim({
        runId: summary.runId,
        targetName: target.name,
        targetKind: target.kind,
        trigger: summary.trigger,
      });
      if (!claimed) {
        this.logger.log(`${where}: already claimed (by this or another replica); not sent again`);
        return;
      }
    } catch (error) {
      // No claim, no send: a delivery nobody can record could be repeated by another replica. The
      // sweeper finds an alert-started run left without its claims (NotificationSweeper).
      this.logger.error(`${where}: not sent, its claim could not be stored: ${describeDatabaseError(error)}`);
      return;
    }
    await this.sendClaimed(summary.runId, target, message);
  }

  /**
   * Finishes a delivery a stopped replica left (a SENDING claim past the longest try, or one given up at
   * shutdown): taken over in MySQL first, so of replicas racing for it one sends; then sent as a fresh
   * delivery with the same Idempotency-Key, so a receiver that got the first try can drop the repeat.
   * Tracked like every delivery (`settled`).
   */
  resumeDelivery(delivery: ResumableDelivery, ages: TakeoverAges): Promise<void> {
    const work = this.resume(delivery, ages).catch((error: unknown) => {
      this.logger.error(
        `resuming the notification of run ${delivery.runId} to "${delivery.targetName}" stopped: ${describeDatabaseError(error)}`,
      );
    });
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
    return work;
  }

  private async resume(delivery: ResumableDelivery, ages: TakeoverAges): Promise<void> {
    if (!(await this.deliveries.takeOver(delivery.runId, delivery.targetName, ages))) return;
    const target = this.byName.get(delivery.targetName);
    if (target === undefined) {
      this.logger.warn(
        `notification of run ${delivery.runId} to target "${delivery.targetName}": not resumed, the target is no longer configured`,
      );
      await this.deliveries.finish(delivery.runId, delivery.targetName, {
        status: 'FAILED',
        failure: 'TARGET_REMOVED',
        attempts: 0,
        lastHttpStatus: null,
        vendorCode: null,
      });
      return;
    }
    this.logger.warn(`${whereOf(delivery.runId, target)}: resumed, a stopped replica left it unfinished`);
    const run = await this.runs.findRun(delivery.runId);
    const message =
      run === null || this.config.publicBaseUrl === null
        ? null
        : notificationMessageOf(
            run,
            { ...delivery, targets: [delivery.targetName] },
            this.config.publicBaseUrl,
          );
    await this.sendClaimed(delivery.runId, target, message);
  }

  /** Sends a delivery this replica holds the claim of, and records how it ended. */
  private async sendClaimed(
    runId: string,
    target: NotificationTarget,
    message: NotificationMessage | null,
  ): Promise<void> {
    const where = whereOf(runId, target);
    const result: DeliveryResult =
      message === null
        ? {
            status: 'FAILED',
            failure: 'RUN_NOT_FINISHED',
            attempts: 0,
            lastHttpStatus: null,
            vendorCode: null,
          }
        : await deliverNotification(
            target,
            message,
            idempotencyKeyOf(runId, target.name),
            this.config.policy,
            this.io,
            this.shutdown.signal,
          );
    if (result.status === 'DELIVERED') {
      this.metrics.notificationDelivered(target.kind);
      this.logger.log(`${where}: delivered after ${result.attempts} attempt(s)`);
    } else {
      this.metrics.notificationFailed(target.kind, result.failure);
      this.logger.warn(
        `${where}: failed (${result.failure}) after ${result.attempts} attempt(s)` +
          `${result.lastHttpStatus !== null ? `, last HTTP status ${result.lastHttpStatus}` : ''}` +
          `${result.vendorCode !== null ? `, vendor code ${result.vendorCode}` : ''}`,
      );
    }
    try {
      await this.deliveries.finish(runId, target.name, result);
    } catch (error) {
      this.logger.error(
        `${where}: its result (${result.status}) could not be stored: ${describeDatabaseError(error)}`,
      );
    }
  }
}

function whereOf(runId: string, target: NotificationTarget): string {
  return `notification of run ${runId} to target "${target.name}" (${target.kind})`;
}

/** The same for every attempt and replica: a receiver that honours Idempotency-Key drops repeats. */
export function idempotencyKeyOf(runId: string, targetName: string): string {
  return createHash('sha256').update(`${runId}\n${targetName}`).digest('hex').slice(0, 32);
}
