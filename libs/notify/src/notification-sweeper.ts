import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { describeDatabaseError, NotificationDeliveryRepository } from '@app/trace';
import { notifyConfig, NotifyConfig } from './notify.config';
import { RunNotifier } from './run-notifier';

/** Deliveries of runs that ended longer ago than this are not resumed: the news is a day old. */
export const RESUME_HORIZON_MS = 24 * 3600_000;
/** An OWED row counts as left this long after its run ended (the run's own replica claims at once). */
export const OWED_GRACE_MS = 60_000;
/** At most this many deliveries and runs per sweep; the next sweep takes the rest. */
const SWEEP_LIMIT = 50;

/**
 * Every NOTIFY_SWEEP_INTERVAL_MS, on every replica: finishes the notifications a stopped replica left —
 * a run's OWED row a minute after the run ended, a SENDING claim older than the longest try, a
 * delivery given up at shutdown or before its run's end was stored. MySQL decides which replica sends
 * each one (NotificationDeliveryRepository.takeOver).
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
      const ages = { staleMs: this.notifier.staleClaimMs, owedGraceMs: OWED_GRACE_MS };
      const left = await this.deliveries.resumable(ages, RESUME_HORIZON_MS, SWEEP_LIMIT);
      await Promise.all(left.map((delivery) => this.notifier.resumeDelivery(delivery, ages)));
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
