import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AlertOutcome } from '@app/contracts';
import { DataSource, EntityManager } from 'typeorm';

/**
 * The owner recorded on alert groups' sessions: no API key created them, and no key's digest can equal it
 * (a SHA-256 of a fixed text, not of a key). Every trace_reader lists and reads them (docs/alerts.md).
 */
export const ALERT_SESSION_OWNER = createHash('sha256').update('superbiz:alert-group-sessions').digest('hex');

/** A run recorded as the group's active one but with no run row yet counts as running for this long. */
const UNSTARTED_RUN_GRACE_SECONDS = 300;

/** One notification of one alert group, as the decision needs it. */
export interface AlertNotice {
  /** SHA-256 (hex) of receiver and group key: the group's identity. */
  groupKeyHash: string;
  groupKey: string;
  receiver: string;
  status: 'firing' | 'resolved';
  /** Fingerprints of the firing alerts (all alerts for a resolved notification), sorted, distinct. */
  fingerprints: string[];
  alertCount: number;
  /** The group's common labels, recorded on its session when the session is created. */
  labels: Record<string, string>;
}

export interface AlertPolicy {
  /** No new investigation of a group within this long of its last one. */
  dedupWindowMs: number;
  /** At most this many alert-started runs per clock hour, across every replica. */
  maxRunsPerHour: number;
  /** False when this replica has no place for another alert-started run: the outcome is ALERT_QUEUE_FULL. */
  canStart: boolean;
}

export type AlertDecision =
  | { outcome: 'INVESTIGATION_STARTED'; sessionId: string; runId: string; continued: boolean }
  | { outcome: Exclude<AlertOutcome, 'INVESTIGATION_STARTED'>; sessionId: string; runId: null };

interface GroupRow {
  session_id: string;
  active_run_id: string | null;
  run_status: string | null;
  active_run_recent: number | string;
  within_window: number | string | null;
  resolved_since: number | string;
  investigated_fingerprints: string | string[] | null;
  has_run: number | string;
}

export interface AlertNotificationRow {
  receivedAt: Date;
  status: string;
  outcome: AlertOutcome;
  runId: string | null;
  alertCount: number;
}

/**
 * Alert groups and their notifications. Each notification is decided in one transaction holding the
 * group's row lock (SELECT … FOR UPDATE on its primary key), so replicas deciding the same group at once
 * are serialised by MySQL: exactly one of them starts an investigation. The hourly cap is a conditional
 * increment of the hour's counter row in the same transaction.
 */
@Injectable()
export class AlertGroupRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async decide(notice: AlertNotice, policy: AlertPolicy, newRunId: string): Promise<AlertDecision> {
    // The group's row and its session exist before the decision; concurrent first notifications insert
    // once (primary keys), and every one of them then waits for the same row lock.
    await this.dataSource.query(
      `INSERT IGNORE INTO alert_group (group_key_hash, session_id, group_key, receiver, last_status)
       VALUES (?, ?, ?, ?, ?)`,
      [notice.groupKeyHash, randomUUID(), notice.groupKey, notice.receiver, notice.status],
    );
    return this.dataSource.transaction(async (manager) => {
      const [group] = (await manager.query(
        `SELECT g.session_id, g.active_run_id, r.status AS run_status,
           (g.last_run_started_at > NOW(3) - INTERVAL ? SECOND) AS active_run_recent,
           (g.last_run_started_at > NOW(3) - INTERVAL ? MICROSECOND) AS within_window,
           (g.resolved_at IS NOT NULL AND g.resolved_at >= COALESCE(g.last_run_started_at, g.resolved_at)) AS resolved_since,
           (g.last_run_started_at IS NOT NULL) AS has_run,
           g.investigated_fingerprints
         FROM alert_group g LEFT JOIN diagnosis_run r ON r.run_id = g.active_run_id
         WHERE g.group_key_hash = ? FOR UPDATE`,
        [UNSTARTED_RUN_GRACE_SECONDS, policy.dedupWindowMs * 1000, notice.groupKeyHash],
      )) as GroupRow[];
      if (!group) throw new Error('the alert group row is missing after its insert');
      const sessionId = group.session_id;
      // Every notification is activity of the group's session (its list order, and retention's clock).
      await manager.query(
        `INSERT INTO chat_session (session_id, owner_key_digest, origin, alert_labels)
         VALUES (?, ?, 'ALERT', ?) ON DUPLICATE KEY UPDATE updated_at = CURRENT_TIMESTAMP(3)`,
        [sessionId, ALERT_SESSION_OWNER, JSON.stringify(notice.labels)],
      );
      const outcome = await this.outcomeOf(manager, notice, policy, group);
      if (outcome === 'INVESTIGATION_STARTED') {
        await manager.query(
          `UPDATE alert_group SET active_run_id = ?, last_run_started_at = NOW(3), investigated_fingerprints = ?,
             last_status = 'firing', updated_at = NOW(3) WHERE group_key_hash = ?`,
          [newRunId, JSON.stringify(notice.fingerprints), notice.groupKeyHash],
        );
      } else {
        await manager.query(
          `UPDATE alert_group SET last_status = ?, updated_at = NOW(3),
             resolved_at = IF(? = 'resolved', NOW(3), resolved_at) WHERE group_key_hash = ?`,
          [notice.status, notice.status, notice.groupKeyHash],
        );
      }
      const runId = outcome === 'INVESTIGATION_STARTED' ? newRunId : null;
      await manager.query(
        `INSERT INTO alert_notification (group_key_hash, session_id, status, outcome, run_id, alert_count, fingerprints)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [
          notice.groupKeyHash,
          sessionId,
          notice.status,
          outcome,
          runId,
          notice.alertCount,
          JSON.stringify(notice.fingerprints),
        ],
      );
      return outcome === 'INVESTIGATION_STARTED'
        ? { outcome, sessionId, runId: newRunId, continued: Number(group.has_run) === 1 }
        : { outcome, sessionId, runId: null };
    });
  }

  private async outcomeOf(
    manager: EntityManager,
    notice: AlertNotice,
    policy: AlertPolicy,
    group: GroupRow,
  ): Promise<AlertOutcome> {
    if (notice.status === 'resolved') return 'RESOLVED_RECORDED';
    const running =
      group.active_run_id !== null &&
      (group.run_status === 'RUNNING' ||
        (group.run_status === null && Number(group.active_run_recent) === 1));
    if (running) return 'RUN_IN_PROGRESS';
    if (Number(group.within_window) === 1) return 'DUPLICATE_WITHIN_WINDOW';
    const investigated = new Set(parseFingerprints(group.investigated_fingerprints));
    if (
      investigated.size > 0 &&
      Number(group.resolved_since) !== 1 &&
      notice.fingerprints.every((fingerprint) => investigated.has(fingerprint))
    ) {
      return 'ALREADY_INVESTIGATED';
    }
    if (!policy.canStart) return 'ALERT_QUEUE_FULL';
    // The hour's counter: created at 0 once, then raised only while under the cap (a matched row).
    await manager.query(
      "INSERT IGNORE INTO alert_run_hour (hour_start, started) VALUES (DATE_FORMAT(NOW(), '%Y-%m-%d %H:00:00'), 0)",
    );
    const raised = (await manager.query(
      `UPDATE alert_run_hour SET started = started + 1
       WHERE hour_start = DATE_FORMAT(NOW(), '%Y-%m-%d %H:00:00') AND started < ?`,
      [policy.maxRunsPerHour],
    )) as { affectedRows: number };
    return raised.affectedRows === 1 ? 'INVESTIGATION_STARTED' : 'HOURLY_CAP_REACHED';
  }

  /** The group's investigation ended: a later notification may start the next one (window permitting). */
  async runEnded(runId: string): Promise<void> {
    await this.dataSource.query('UPDATE alert_group SET active_run_id = NULL WHERE active_run_id = ?', [
      runId,
    ]);
  }

  /**
   * The investigation was decided but its run rows could not be written: the group is released and its
   * window and investigated alerts forgotten, so the sender's retry may start it.
   */
  async startFailed(runId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE alert_group SET active_run_id = NULL, last_run_started_at = NULL, investigated_fingerprints = NULL
       WHERE active_run_id = ?`,
      [runId],
    );
  }

  /** The latest notifications of a session's alert group, newest first. */
  async listNotifications(sessionId: string, limit: number): Promise<AlertNotificationRow[]> {
    const rows = (await this.dataSource.query(
      `SELECT received_at, status, outcome, run_id, alert_count FROM alert_notification
       WHERE session_id = ? ORDER BY received_at DESC, id DESC LIMIT ?`,
      [sessionId, limit],
    )) as {
      received_at: Date;
      status: string;
      outcome: AlertOutcome;
      run_id: string | null;
      alert_count: number | string;
    }[];
    return rows.map((row) => ({
      receivedAt: row.received_at,
      status: row.status,
      outcome: row.outcome,
      runId: row.run_id,
      alertCount: Number(row.alert_count),
    }));
  }
}

function parseFingerprints(value: string | string[] | null): string[] {
  if (value === null) return [];
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
}
