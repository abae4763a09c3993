import { Inject, Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { traceConfig, TraceConfig } from '../config/trace.config';
import { AgentReasoningAuditEntity } from '../entities/agent-reasoning-audit.entity';
import { ChatSessionEntity } from '../entities/chat-session.entity';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PurgeResult {
  reasoningAuditRows: number;
  sessions: number;
}

/**
 * Retention: reasoning-audit rows older than AUDIT_RETENTION_DAYS, and sessions untouched for longer than
 * TRACE_RETENTION_DAYS (their runs, steps, tool invocations, timeline and audit go with them by cascade).
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger(RetentionService.name);

  constructor(
    @InjectRepository(AgentReasoningAuditEntity)
    private readonly audits: Repository<AgentReasoningAuditEntity>,
    @InjectRepository(ChatSessionEntity) private readonly sessions: Repository<ChatSessionEntity>,
    @Inject(traceConfig.KEY) private readonly config: TraceConfig,
  ) {}

  async purge(now = new Date()): Promise<PurgeResult> {
    const audit = await this.audits.delete({
      createdAt: LessThan(new Date(now.getTime() - this.config.auditRetentionDays * DAY_MS)),
    });
    const sessions = await this.sessions.delete({
      updatedAt: LessThan(new Date(now.getTime() - this.config.traceRetentionDays * DAY_MS)),
    });
    return { reasoningAuditRows: audit.affected ?? 0, sessions: sessions.affected ?? 0 };
  }

  @Cron(CronExpression.EVERY_HOUR, { name: 'retention-purge' })
  async scheduledPurge(): Promise<void> {
    try {
      const result = await this.purge();
      if (result.reasoningAuditRows + result.sessions > 0) {
        this.logger.log(
          `retention purge: ${result.reasoningAuditRows} reasoning-audit rows, ${result.sessions} sessions`,
        );
      }
    } catch (error) {
      this.logger.warn(`retention purge failed: ${error instanceof Error ? error.name : 'unknown error'}`);
    }
  }
}
