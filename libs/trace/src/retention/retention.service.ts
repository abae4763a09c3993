import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryResult, Repository } from 'typeorm';
import { traceConfig, TraceConfig } from '../config/trace.config';
import { AgentReasoningAuditEntity } from '../entities/agent-reasoning-audit.entity';
import { ChatSessionEntity } from '../entities/chat-session.entity';
import { DiagnosisRunEntity } from '../entities/diagnosis-run.entity';
import { RunOwner } from '../repositories/run-owner';
import { sessionSummaryUpdate } from '../repositories/session-summary';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The tables a purge deletes from, children before parents (the order they are emptied in). */
export const PURGED_TABLES = [
  'agent_reasoning_audit',
  'agent_step',
  'tool_invocation',
  'diagnosis_trace_event',
  'diagnosis_run',
  'chat_session',
] as const;
export type PurgedTable = (typeof PURGED_TABLES)[number];

export interface PurgeResult {
  /** Rows deleted per table, whatever the reason: expired audit rows and everything of an expired session. */
  deleted: Record<PurgedTable, number>;
  /** Of deleted.agent_reasoning_audit, the rows older than AUDIT_RETENTION_DAYS (their sessions live on). */
  expiredAuditRows: number;
  abandonedRuns: number;
}

/** One line for the operator: every table's count, including rows of the expired sessions' runs. */
export function describePurge(result: PurgeResult): string {
  const tables = PURGED_TABLES.map((table) => `${table} ${result.deleted[table]}`).join(', ');
  return `purged rows: ${tables} (${result.expiredAuditRows} reasoning-audit row(s) past AUDIT_RETENTION_DAYS); closed ${result.abandonedRuns} abandoned run(s)`;
}

/** A run's closing timeline event, written by whoever stores its end, once. */
const RUN_FINISHED_IF_MISSING = `INSERT INTO diagnosis_trace_event (run_id, phase, event_type, details, created_at)
  SELECT ?, 'RUN', 'RUN_FINISHED', ?, NOW(3) FROM DUAL
  WHERE NOT EXISTS (SELECT 1 FROM diagnosis_trace_event WHERE run_id = ? AND event_type = 'RUN_FINISHED')`;

/** Children of the runs of sessions untouched since the cutoff (`?`), deleted table by table. */
const EXPIRED_RUNS_JOIN =
  'JOIN diagnosis_run r ON r.run_id = child.run_id JOIN chat_session s ON s.session_id = r.session_id WHERE s.updated_at < ?';

/**
 * Retention: reasoning-audit rows older than AUDIT_RETENTION_DAYS, and sessions untouched for longer than
 * TRACE_RETENTION_DAYS with their runs, steps, tool invocations, timeline and audit, counted per table.
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

  /**
   * Deletes in one transaction, children first, so each table's count is what left it; nothing is left
   * to ON DELETE CASCADE, whose rows no affected-row count reports. The expired sessions and their runs
   * are locked first: a step, invocation or event written meanwhile into one of those runs waits for the
   * commit (its foreign-key check) instead of being cascaded away uncounted.
   */
  async purge(now = new Date()): Promise<PurgeResult> {
    const auditCutoff = new Date(now.getTime() - this.config.auditRetentionDays * DAY_MS);
    const sessionCutoff = new Date(now.getTime() - this.config.traceRetentionDays * DAY_MS);
    const { deleted, expiredAuditRows } = await this.sessions.manager.transaction(async (manager) => {
      const affected = async (sql: string, params: unknown[]): Promise<number> =>
        ((await manager.queryRunner!.query(sql, params, true)) as QueryResult).affected ?? 0;
      await manager.query(
        'SELECT COUNT(r.run_id) FROM chat_session s LEFT JOIN diagnosis_run r ON r.session_id = s.session_id WHERE s.updated_at < ? FOR UPDATE',
        [sessionCutoff],
      );
      const expired = await affected('DELETE FROM agent_reasoning_audit WHERE created_at < ?', [auditCutoff]);
      const counts = {} as Record<PurgedTable, number>;
      for (const table of [
        'agent_reasoning_audit',
        'agent_step',
        'tool_invocation',
        'diagnosis_trace_event',
      ] as const) {
        counts[table] = await affected(`DELETE child FROM ${table} child ${EXPIRED_RUNS_JOIN}`, [
          sessionCutoff,
        ]);
      }
      counts.agent_reasoning_audit += expired;
      counts.diagnosis_run = await affected(
        'DELETE r FROM diagnosis_run r JOIN chat_session s ON s.session_id = r.session_id WHERE s.updated_at < ?',
        [sessionCutoff],
      );
      counts.chat_session = await affected('DELETE FROM chat_session WHERE updated_at < ?', [sessionCutoff]);
      return { deleted: counts, expiredAuditRows: expired };
    });
    return { deleted, expiredAuditRows, abandonedRuns: await this.closeAbandonedRuns(now) };
  }

  /**
   * Extends the lease of every run this replica is still executing: one statement per heartbeat. The
   * lease is dated by SYSDATE, the time the row is written, not NOW (the statement's start): a renewal
   * that waited longer than the lease for a row lock would otherwise write a lease already expired.
   */
  async renewOwnLeases(): Promise<number> {
    const executing = this.owner.executingRuns();
    if (executing.length === 0) return 0;
    const { leaseMs } = this.config.runLease;
    const result = await this.runs
      .createQueryBuilder()
      .update()
      .set({ leaseExpiresAt: () => `SYSDATE(3) + INTERVAL ${leaseMs * 1000} MICROSECOND` })
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
   * replica stopped executing without storing its end (its lease is no longer renewed). Never a run this
   * replica is still executing, whatever its lease says: a renewal that failed or came late must not let
   * the replica close its own live run. The update is conditional on RUNNING, so of two replicas sweeping
   * at once and the owner finishing late, exactly one writes the terminal state.
   */
  closeExpiredLeases(now = new Date()): Promise<number> {
    const executing = this.owner.executingRuns();
    if (executing.length === 0) {
      return this.closeRuns("status = 'RUNNING' AND lease_expires_at < NOW(3)", [], now);
    }
    return this.closeRuns(
      "status = 'RUNNING' AND lease_expires_at < NOW(3) AND NOT (owner_id = ? AND run_id IN (?))",
      [this.owner.id, executing],
      now,
    );
  }

  /**
   * Stores the endings this replica announced but could not confirm (RunOwner.endingNotStored): the
   * state and code the client heard, whatever the row holds — RUNNING, ABANDONED by a reaper, or a state
   * whose commit was never acknowledged and whose answer the client therefore never received (so a
   * later turn never builds on it). RUN_FINISHED is added when the run has none. Entries whose write
   * fails stay for the next heartbeat.
   */
  async reconcileUnconfirmed(now = new Date()): Promise<number> {
    let stored = 0;
    for (const [runId, { status, errorCode }] of this.owner.unconfirmedEndings()) {
      await this.runs.manager.transaction(async (manager) => {
        const [row] = (await manager.query('SELECT status FROM diagnosis_run WHERE run_id = ? FOR UPDATE', [
          runId,
        ])) as { status: string }[];
        if (!row) return;
        await manager.query(
          `UPDATE diagnosis_run SET status = ?, release_outcome = ?, error_code = ?,
             conclusion = NULL, published_result = NULL, fallback_reason = NULL, ended_at = COALESCE(ended_at, ?)
           WHERE run_id = ?`,
          [status, status, errorCode, now, runId],
        );
        await manager.query(RUN_FINISHED_IF_MISSING, [runId, JSON.stringify({ status }), runId]);
        if (row.status === 'RUNNING') {
          const summary = sessionSummaryUpdate(runId);
          await manager.query(summary.sql, summary.params);
        } else {
          // Already counted when it ended; only its outcome in the list changes.
          await manager.query(
            `UPDATE chat_session s JOIN diagnosis_run r ON r.session_id = s.session_id AND r.run_id = ?
             SET s.last_outcome = IF(r.created_at >= COALESCE(s.last_run_at, r.created_at), r.status, s.last_outcome)`,
            [runId],
          );
        }
      });
      this.owner.endingStored(runId);
      stored += 1;
    }
    return stored;
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
        await manager.query(RUN_FINISHED_IF_MISSING, [runId, JSON.stringify({ status: 'FAILED' }), runId]);
        const summary = sessionSummaryUpdate(runId);
        await manager.query(summary.sql, summary.params);
      }
      return closed;
    });
  }
}
