import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RetentionService } from './retention.service';

/**
 * Every RUN_HEARTBEAT_MS: renew this replica's run leases, then close runs whose owner's lease ran out.
 * Renewing first, in the same tick, means a replica never takes its own runs for dead after a stall.
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
      await this.retention.renewOwnLeases();
      const closed = await this.retention.closeExpiredLeases();
      if (closed > 0) this.logger.warn(`closed ${closed} runs of a replica whose lease ran out (ABANDONED)`);
      this.failing = false;
    } catch (error) {
      if (!this.failing) {
        this.logger.warn(
          `run lease heartbeat failed: ${error instanceof Error ? error.name : 'unknown error'}`,
        );
      }
      this.failing = true;
    } finally {
      this.beating = false;
    }
  }
}
