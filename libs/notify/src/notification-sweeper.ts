import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { describeDatabaseError, NotificationDeliveryRepository } from '@app/trace';
import { notifyConfig, NotifyConfig } from './notify.config';
import { RunNotifier } from './run-notifier';

/** Deliveries of runs that ended longer ago than this are not resumed: the news is a day old. */
export const RESUME_HORIZON_MS = 24 * 3600_000;
/** An alert-started run counts as left without claims this long after it ended (its own replica claims at once). */
export const OWED_GRACE_MS = 60_000;
/** At most this many deliveries and runs per sweep; the next sweep takes the rest. */
const SWEEP_LIMIT = 50;

/**
 * Every NOTIFY_SWEEP_INTERVAL_MS, on every replica: finishes the notifications a stopped replica left
 * (a SENDING claim older than the longest try, a delivery given up at shutdown or before its run's end
 * was stored) and notifies alert-started runs that ended with no claim at all (their replica stopped
 * before claiming, or the claim could not be stored). MySQL decides which replica sends each one.
 */
@Injectable()
export class NotificationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(NotificationSweeper.name);
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private failing = false;

  constructor(
    @Inject(notifyConfig.KEY) private readonly config: NotifyConfig,
    private readonly deliveries: NotificationDeliveryRepository,
    private readonly notifier: RunNotifier,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.targets.length === 0) return;
    this.timer = setInterval(() => void this.sweep(), this.config.sweepIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One sweep; resolves when the deliveries it started have ended. Never throws: a failure is logged once. */
  async sweep(): Promise<void> {
    if (this.sweeping || this.config.targets.length === 0) return;
    this.sweeping = true;
    try {
      const staleMs = this.notifier.staleClaimMs;
      const left = await this.deliveries.resumable(staleMs, RESUME_HORIZON_MS, SWEEP_LIMIT);
      const owed = await this.deliveries.owedAlertRuns(
        this.notifier.targetNames,
        OWED_GRACE_MS,
        RESUME_HORIZON_MS,
        SWEEP_LIMIT,
      );
      if (owed.length > 0) {
        this.logger.warn(
          `${owed.length} alert-started run(s) ended with notifications never claimed; notifying them now`,
        );
      }
      for (const run of owed) {
        this.notifier.notifyRunFinished({
          runId: run.runId,
          sessionId: run.sessionId,
          trigger: 'alert',
          targets: run.missingTargets,
          alertLabels: run.alertLabels,
        });
      }
      await Promise.all(left.map((delivery) => this.notifier.resumeDelivery(delivery, staleMs)));
      await this.notifier.settled();
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn(`notification sweep failed: ${describeDatabaseError(error)}`);
      this.failing = true;
    } finally {
      this.sweeping = false;
    }
  }
}
