import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryResult, Repository } from 'typeorm';
import { traceConfig, TraceConfig } from '../config/trace.config';
import { classifyDatabaseError, describeDatabaseError } from '../database/database-errors';
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
  'alert_notification',
  'alert_group',
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

/** A run's child tables, emptied before the run row. */
const CHILD_TABLES = [
  'agent_reasoning_audit',
  'agent_step',
  'tool_invocation',
  'diagnosis_trace_event',
] as const;

/**
 * Each child table's index on run_id. The purge's locking statements name their index: on a small table
 * the optimizer would rather scan, and a scan locks (and waits for) rows of live runs too.
 */
const RUN_INDEX: Record<(typeof CHILD_TABLES)[number], string> = {
  agent_reasoning_audit: 'uq_reasoning_audit_run_step',
  agent_step: 'uq_agent_step_run_step',
  tool_invocation: 'idx_tool_invocation_run',
  diagnosis_trace_event: 'idx_trace_event_run',
};

/** Sessions per purge transaction: small, so its locks are held for milliseconds. */
const PURGE_BATCH_SESSIONS = 100;
/** Reasoning-audit rows per purge delete. */
const PURGE_BATCH_ROWS = 1000;
/** How often a purge batch that lost a lock is tried again before it is left for the next purge. */
const PURGE_LOCK_RETRIES = 3;

/**
 * Retention: reasoning-audit rows older than AUDIT_RETENTION_DAYS, and sessions untouched for longer than
 * TRACE_RETENTION_DAYS with their runs, steps, tool invocations, timeline and audit, counted per table.
 * Also closes runs a crash or a lost database left RUNNING, so every run ends in exactly one terminal state.
 * Runs on demand (`npm run purge`); RetentionScheduler runs it at start-up and hourly in the server.
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger(RetentionService.name);

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
   * Deletes in small batches, each its own short transaction, so a purge of any backlog never holds
   * locks that a live run's journal waits for: expired audit rows by primary key, then expired sessions
   * whose runs have all ended, children first, so each table's count is what left it (nothing is left to
   * ON DELETE CASCADE, whose rows no affected-row count reports). Candidates are found without locks;
   * a batch then locks only its sessions, by primary key, skipping any a request holds, and re-checks
   * them under the lock (a new run of a session updates its row first, so it either waits or is seen).
   * A batch that loses a lock wait or a deadlock is tried again a few times, then left for the next run.
   */
  async purge(now = new Date()): Promise<PurgeResult> {
    const auditCutoff = new Date(now.getTime() - this.config.auditRetentionDays * DAY_MS);
    const sessionCutoff = new Date(now.getTime() - this.config.traceRetentionDays * DAY_MS);
    const counts = Object.fromEntries(PURGED_TABLES.map((table) => [table, 0])) as Record<
      PurgedTable,
      number
    >;
    const expiredAuditRows = await this.purgeExpiredAudit(auditCutoff);
    counts.agent_reasoning_audit += expiredAuditRows;
    let after = '';
    for (;;) {
      const candidates = (
        (await this.sessions.query(
          'SELECT session_id FROM chat_session WHERE session_id > ? AND updated_at < ? ORDER BY session_id LIMIT ?',
          [after, sessionCutoff, PURGE_BATCH_SESSIONS],
        )) as { session_id: string }[]
      ).map((row) => row.session_id);
      if (candidates.length === 0) break;
      after = candidates[candidates.length - 1];
      const batch = await this.withLockRetries(() => this.purgeSessions(candidates, sessionCutoff));
      if (batch) for (const table of PURGED_TABLES) counts[table] += batch[table];
    }
    return { deleted: counts, expiredAuditRows, abandonedRuns: await this.closeAbandonedRuns(now) };
  }

  /** Reasoning-audit rows past AUDIT_RETENTION_DAYS, a batch of ids at a time (autocommit deletes by key). */
  private async purgeExpiredAudit(cutoff: Date): Promise<number> {
    let deleted = 0;
    let after = 0;
    for (;;) {
      const ids = (
        (await this.audits.query(
          'SELECT id FROM agent_reasoning_audit WHERE id > ? AND created_at < ? ORDER BY id LIMIT ?',
          [after, cutoff, PURGE_BATCH_ROWS],
        )) as { id: number | string }[]
      ).map((row) => Number(row.id));
      if (ids.length === 0) return deleted;
      after = ids[ids.length - 1];
      const result = await this.withLockRetries(
        async () =>
          (
            (await this.audits.query(
              'DELETE a FROM agent_reasoning_audit a FORCE INDEX (PRIMARY) WHERE a.id IN (?)',
              [ids],
            )) as {
              affectedRows: number;
            }
          ).affectedRows,
      );
      deleted += result ?? 0;
    }
  }

  /** One batch of expired sessions and everything of their runs, in one short transaction. */
  private purgeSessions(candidates: string[], cutoff: Date): Promise<Record<PurgedTable, number>> {
    // READ COMMITTED: record locks only, no gap locks, so a live run's inserts next to the purged keys
    // (a timeline row of another run, a step) neither wait for the batch nor deadlock with it.
    return this.sessions.manager.transaction('READ COMMITTED', async (manager) => {
      const affected = async (sql: string, params: unknown[]): Promise<number> =>
        ((await manager.queryRunner!.query(sql, params, true)) as QueryResult).affected ?? 0;
      const counts = Object.fromEntries(PURGED_TABLES.map((table) => [table, 0])) as Record<
        PurgedTable,
        number
      >;
      const locked = (
        (await manager.query(
          'SELECT session_id FROM chat_session FORCE INDEX (PRIMARY) WHERE session_id IN (?) AND updated_at < ? FOR UPDATE SKIP LOCKED',
          [candidates, cutoff],
        )) as { session_id: string }[]
      ).map((row) => row.session_id);
      if (locked.length === 0) return counts;
      const live = new Set(
        (
          (await manager.query(
            "SELECT DISTINCT session_id FROM diagnosis_run WHERE session_id IN (?) AND status = 'RUNNING'",
            [locked],
          )) as { session_id: string }[]
        ).map((row) => row.session_id),
      );
      const sessions = locked.filter((session) => !live.has(session));
      if (sessions.length === 0) return counts;
      // The run ids first, then deletes by them: a subquery inside a DELETE would lock what it reads.
      const runs = (
        (await manager.query('SELECT run_id FROM diagnosis_run WHERE session_id IN (?)', [sessions])) as {
          run_id: string;
        }[]
      ).map((row) => row.run_id);
      if (runs.length > 0) {
        for (const table of CHILD_TABLES) {
          counts[table] = await affected(
            `DELETE child FROM ${table} child FORCE INDEX (${RUN_INDEX[table]}) WHERE child.run_id IN (?)`,
            [runs],
          );
        }
        counts.diagnosis_run = await affected(
          'DELETE r FROM diagnosis_run r FORCE INDEX (PRIMARY) WHERE r.run_id IN (?)',
          [runs],
        );
      }
      // An alert group's session goes with its group and notifications; its next notification starts afresh.
      counts.alert_notification = await affected(
        'DELETE n FROM alert_notification n FORCE INDEX (idx_alert_notification_session) WHERE n.session_id IN (?)',
        [sessions],
      );
      counts.alert_group = await affected(
        'DELETE g FROM alert_group g FORCE INDEX (uq_alert_group_session) WHERE g.session_id IN (?)',
        [sessions],
      );
      counts.chat_session = await affected(
        'DELETE s FROM chat_session s FORCE INDEX (PRIMARY) WHERE s.session_id IN (?)',
        [sessions],
      );
      return counts;
    });
  }

  /** The work, tried again up to PURGE_LOCK_RETRIES times when it lost a lock wait or a deadlock; null if it never won. */
  private async withLockRetries<T>(work: () => Promise<T>): Promise<T | null> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        const failure = classifyDatabaseError(error);
        if (failure !== 'DEADLOCK' && failure !== 'LOCK_WAIT_TIMEOUT') throw error;
        if (attempt > PURGE_LOCK_RETRIES) {
          this.logger.warn(`a purge batch was left for the next purge: ${describeDatabaseError(error)}`);
          return null;
        }
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
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
