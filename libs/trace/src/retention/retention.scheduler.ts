import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { describeDatabaseError } from '../database/database-errors';
import { describePurge, RetentionService } from './retention.service';

/**
 * The server's retention schedule: once at start-up (a restart after a crash closes what the crash left
 * open) and hourly. Kept out of TraceModule so that CLIs using the trace store purge nothing by booting.
 */
@Injectable()
export class RetentionScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger(RetentionScheduler.name);

  constructor(private readonly retention: RetentionService) {}

  private purging = false;

  /** Not awaited: the port opens while a backlog is purged, batch by batch, beside live runs. */
  onApplicationBootstrap(): void {
    void this.scheduledPurge();
  }

  @Cron(CronExpression.EVERY_HOUR, { name: 'retention-purge' })
  async scheduledPurge(): Promise<void> {
    if (this.purging) return;
    this.purging = true;
    try {
      const result = await this.retention.purge();
      if (Object.values(result.deleted).some((count) => count > 0)) {
        this.logger.log(`retention ${describePurge(result)}`);
      }
    } catch (error) {
      this.logger.warn(`retention purge failed: ${describeDatabaseError(error)}`);
    } finally {
      this.purging = false;
    }
  }
}
