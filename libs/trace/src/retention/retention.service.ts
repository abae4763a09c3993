import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { traceConfig, TraceConfig } from '../config/trace.config';
import { AgentReasoningAuditEntity } from '../entities/agent-reasoning-audit.entity';
import { ChatSessionEntity } from '../entities/chat-session.entity';
import { DiagnosisRunEntity } from '../entities/diagnosis-run.entity';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PurgeResult {
  reasoningAuditRows: number;
  sessions: number;
  abandonedRuns: number;
}

/**
 * Retention: reasoning-audit rows older than AUDIT_RETENTION_DAYS, and sessions untouched for longer than
 * TRACE_RETENTION_DAYS (their runs, steps, tool invocations, timeline and audit go with them by cascade).
 * Also closes runs a crash or a lost database left RUNNING, so every run ends in exactly one terminal state.
 * Runs on demand (`npm run purge`); RetentionScheduler runs it at start-up and hourly in the server.
 */
@Injectable()
export class RetentionService {
  constructor(
    @InjectRepository(AgentReasoningAuditEntity)
    private readonly audits: Repository<AgentReasoningAuditEntity>,
    @InjectRepository(ChatSessionEntity) private readonly sessions: Repository<ChatSessionEntity>,
    @InjectRepository(DiagnosisRunEntity) private readonly runs: Repository<DiagnosisRunEntity>,
    @Inject(traceConfig.KEY) private readonly config: TraceConfig,
  ) {}

  async purge(now = new Date()): Promise<PurgeResult> {
    const audit = await this.audits.delete({
      createdAt: LessThan(new Date(now.getTime() - this.config.auditRetentionDays * DAY_MS)),
    });
    const sessions = await this.sessions.delete({
      updatedAt: LessThan(new Date(now.getTime() - this.config.traceRetentionDays * DAY_MS)),
    });
    return {
      reasoningAuditRows: audit.affected ?? 0,
      sessions: sessions.affected ?? 0,
      abandonedRuns: await this.closeAbandonedRuns(now),
    };
  }

  async closeAbandonedRuns(now = new Date()): Promise<number> {
    const result = await this.runs.update(
      {
        status: 'RUNNING',
        createdAt: LessThan(new Date(now.getTime() - this.config.abandonAfterMinutes * 60_000)),
      },
      { status: 'FAILED', releaseOutcome: 'FAILED', errorCode: 'ABANDONED', endedAt: now },
    );
    return result.affected ?? 0;
  }
}
