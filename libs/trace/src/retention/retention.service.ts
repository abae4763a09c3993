import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { traceConfig, TraceConfig } from '../config/trace.config';
import { AgentReasoningAuditEntity } from '../entities/agent-reasoning-audit.entity';
import { ChatSessionEntity } from '../entities/chat-session.entity';
import { DiagnosisRunEntity } from '../entities/diagnosis-run.entity';
import { RunOwner } from '../repositories/run-owner';

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
    private readonly owner: RunOwner,
  ) {}

  /** How often RunLeaseScheduler renews and sweeps (RUN_HEARTBEAT_MS). */
  get heartbeatMs(): number {
    return this.config.runLease.heartbeatMs;
  }

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

  /** Extends the lease of every run this replica is still executing: one statement per heartbeat. */
  async renewOwnLeases(): Promise<number> {
    const executing = this.owner.executingRuns();
    if (executing.length === 0) return 0;
    const { leaseMs } = this.config.runLease;
    const result = await this.runs
      .createQueryBuilder()
      .update()
      .set({ leaseExpiresAt: () => `NOW(3) + INTERVAL ${leaseMs * 1000} MICROSECOND` })
      .where('run_id IN (:...executing) AND owner_id = :owner AND status = :running', {
        executing,
        owner: this.owner.id,
        running: 'RUNNING',
      })
      .execute();
    return result.affected ?? 0;
  }

  /**
   * Closes the RUNNING runs whose lease ran out as FAILED/ABANDONED: a crashed replica's, or one this
   * replica stopped executing without storing its end (its lease is no longer renewed). The runs this
   * replica is executing were renewed just before, in the same heartbeat. The update is conditional on
   * RUNNING, so of two replicas sweeping at once and the owner finishing late, exactly one writes the
   * terminal state.
   */
  async closeExpiredLeases(now = new Date()): Promise<number> {
    const result = await this.runs
      .createQueryBuilder()
      .update()
      .set({ status: 'FAILED', releaseOutcome: 'FAILED', errorCode: 'ABANDONED', endedAt: now })
      .where('status = :running AND lease_expires_at < NOW(3)', { running: 'RUNNING' })
      .execute();
    return result.affected ?? 0;
  }

  /** The backstop for runs without a lease (started before leases existed). */
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
