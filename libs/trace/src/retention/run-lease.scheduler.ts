import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { describeDatabaseError } from '../database/database-errors';
import { RetentionService } from './retention.service';

/**
 * Every RUN_HEARTBEAT_MS: store the endings this replica announced but could not confirm, renew its run
 * leases, then close runs whose owner's lease ran out (never this replica's live ones).
 */
@Injectable()
export class RunLeaseScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunLeaseScheduler.name);
  private timer: NodeJS.Timeout | undefined;
  private beating = false;
  private failing = false;

  constructor(private readonly retention: RetentionService) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.beat(), this.retention.heartbeatMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    try {
      const reconciled = await this.retention.reconcileUnconfirmed();
      if (reconciled > 0)
        this.logger.warn(
          `stored the announced ending of ${reconciled} run(s) whose terminal write had failed`,
        );
      await this.retention.renewOwnLeases();
      const closed = await this.retention.closeExpiredLeases();
      if (closed > 0) this.logger.warn(`closed ${closed} runs of a replica whose lease ran out (ABANDONED)`);
      this.failing = false;
    } catch (error) {
      if (!this.failing) {
        this.logger.warn(`run lease heartbeat failed: ${describeDatabaseError(error)}`);
      }
      this.failing = true;
    } finally {
      this.beating = false;
    }
  }
}
