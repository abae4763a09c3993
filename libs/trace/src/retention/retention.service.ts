import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { traceConfig, TraceConfig } from '../config/trace.config';
import { AgentReasoningAuditEntity } from '../entities/agent-reasoning-audit.entity';
import { ChatSessionEntity } from '../entities/chat-session.entity';
import { DiagnosisRunEntity } from '../entities/diagnosis-run.entity';
import { RunOwner } from '../repositories/run-owner';
import { sessionSummaryUpdate } from '../repositories/session-summary';

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
  closeExpiredLeases(now = new Date()): Promise<number> {
    return this.closeRuns("status = 'RUNNING' AND lease_expires_at < NOW(3)", [], now);
  }

  /** The backstop for runs without a lease (started before leases existed). */
  closeAbandonedRuns(now = new Date()): Promise<number> {
    return this.closeRuns(
      "status = 'RUNNING' AND created_at < ?",
      [new Date(now.getTime() - this.config.abandonAfterMinutes * 60_000)],
      now,
    );
  }

  /**
   * The reaper's terminal write: the matching runs are locked, closed (still conditional on RUNNING) and
   * their sessions' list rows updated, in one transaction, like a run's own terminal write. Nothing to
   * close costs one indexed SELECT.
   */
  private closeRuns(where: string, params: unknown[], now: Date): Promise<number> {
    return this.runs.manager.transaction(async (manager) => {
      const expired = (await manager.query(
        `SELECT run_id FROM diagnosis_run WHERE ${where} FOR UPDATE`,
        params,
      )) as {
        run_id: string;
      }[];
      let closed = 0;
      for (const { run_id: runId } of expired) {
        const result = (await manager.query(
          "UPDATE diagnosis_run SET status = 'FAILED', release_outcome = 'FAILED', error_code = 'ABANDONED', ended_at = ? WHERE run_id = ? AND status = 'RUNNING'",
          [now, runId],
        )) as { affectedRows: number };
        if (result.affectedRows === 0) continue;
        closed += 1;
        const summary = sessionSummaryUpdate(runId);
        await manager.query(summary.sql, summary.params);
      }
      return closed;
    });
  }
}
