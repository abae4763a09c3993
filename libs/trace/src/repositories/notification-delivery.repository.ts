import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { NotificationFailure, NotificationKind, NotificationTrigger } from '@app/contracts';
import { jsonTransformer } from '../entities/columns';
import { NotificationDeliveryEntity } from '../entities/notification-delivery.entity';
import { RunOwner } from './run-owner';

export interface DeliveryClaim {
  runId: string;
  targetName: string;
  targetKind: NotificationKind;
  trigger: NotificationTrigger;
}

/** How a claimed delivery ended. */
export type DeliveryResult =
  | { status: 'DELIVERED'; attempts: number; lastHttpStatus: number }
  | {
      status: 'FAILED';
      failure: NotificationFailure;
      attempts: number;
      lastHttpStatus: number | null;
      vendorCode: number | null;
    };

export interface NotificationDelivery {
  targetName: string;
  targetKind: string;
  trigger: string;
  status: string;
  failure: string | null;
  attempts: number;
  lastHttpStatus: number | null;
  vendorCode: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A delivery a replica may resume: its claim, the run it reports on, and an alert session's labels. */
export interface ResumableDelivery {
  runId: string;
  sessionId: string;
  targetName: string;
  trigger: NotificationTrigger;
  alertLabels: Record<string, string> | null;
}

/** An alert-started run that ended with no delivery claimed for some configured target. */
export interface OwedAlertRun {
  runId: string;
  sessionId: string;
  alertLabels: Record<string, string> | null;
  /** Of the targets asked about, those with no row for this run. */
  missingTargets: string[];
}

/** Failures a stopped replica leaves, which another one finishes (the run had ended, the target did not answer no). */
const RESUMABLE_FAILURES = ['SHUTDOWN', 'RUN_NOT_FINISHED'] as const satisfies readonly NotificationFailure[];

/**
 * Which rows may be taken over, as SQL over `d` (notification_delivery) with one parameter, the claim age
 * in microseconds: a SENDING claim older than the longest possible try (its replica died), or a delivery a
 * replica gave up for a resumable reason; in both cases only once the run has left RUNNING.
 */
const TAKEOVER_CONDITION = `((d.status = 'SENDING' AND d.updated_at < NOW(3) - INTERVAL ? MICROSECOND)
    OR (d.status = 'FAILED' AND d.failure IN (${RESUMABLE_FAILURES.map((code) => `'${code}'`).join(', ')})))
  AND EXISTS (SELECT 1 FROM diagnosis_run r WHERE r.run_id = d.run_id AND r.status <> 'RUNNING')`;

/** The notification_delivery rows: a replica's claim on a (run, target) before it sends, then the result. */
@Injectable()
export class NotificationDeliveryRepository {
  constructor(
    @InjectRepository(NotificationDeliveryEntity)
    private readonly deliveries: Repository<NotificationDeliveryEntity>,
    private readonly owner: RunOwner,
  ) {}

  /**
   * Claims the (run, target) for this replica: true when this insert created the row, false when any
   * replica (this one included) had already claimed it — then nothing may be sent.
   */
  async claim(claim: DeliveryClaim): Promise<boolean> {
    const result = (await this.deliveries.query(
      `INSERT IGNORE INTO notification_delivery (run_id, target_name, target_kind, run_trigger, status, owner_id)
       VALUES (?, ?, ?, ?, 'SENDING', ?)`,
      [claim.runId, claim.targetName, claim.targetKind, claim.trigger, this.owner.id],
    )) as { affectedRows: number };
    return result.affectedRows === 1;
  }

  /** Records the claimed delivery's result (only this replica's claim, only while it is SENDING). */
  async finish(runId: string, targetName: string, result: DeliveryResult): Promise<void> {
    const failed = result.status === 'FAILED';
    await this.deliveries.query(
      `UPDATE notification_delivery
       SET status = ?, failure = ?, attempts = ?, last_http_status = ?, vendor_code = ?, updated_at = CURRENT_TIMESTAMP(3)
       WHERE run_id = ? AND target_name = ? AND owner_id = ? AND status = 'SENDING'`,
      [
        result.status,
        failed ? result.failure : null,
        result.attempts,
        result.lastHttpStatus,
        failed ? result.vendorCode : null,
        runId,
        targetName,
        this.owner.id,
      ],
    );
  }

  /**
   * Deliveries another replica left unfinished (see TAKEOVER_CONDITION) of runs that ended within
   * `horizonMs`, oldest first, at most `limit`. Only candidates: `takeOver` decides.
   */
  async resumable(staleMs: number, horizonMs: number, limit: number): Promise<ResumableDelivery[]> {
    const rows = (await this.deliveries.query(
      `SELECT d.run_id, d.target_name, d.run_trigger, r.session_id, s.alert_labels
       FROM notification_delivery d
       JOIN diagnosis_run r ON r.run_id = d.run_id
       JOIN chat_session s ON s.session_id = r.session_id
       WHERE ${TAKEOVER_CONDITION} AND r.ended_at >= NOW(3) - INTERVAL ? MICROSECOND
       ORDER BY d.updated_at LIMIT ?`,
      [staleMs * 1000, horizonMs * 1000, limit],
    )) as {
      run_id: string;
      target_name: string;
      run_trigger: NotificationTrigger;
      session_id: string;
      alert_labels: unknown;
    }[];
    return rows.map((row) => ({
      runId: row.run_id,
      sessionId: row.session_id,
      targetName: row.target_name,
      trigger: row.run_trigger,
      alertLabels: labelsOf(row.alert_labels),
    }));
  }

  /**
   * Takes a resumable delivery over for this replica: one conditional UPDATE, so of replicas racing for
   * the same row exactly one gets it (true); the row is SENDING again, under this replica.
   */
  async takeOver(runId: string, targetName: string, staleMs: number): Promise<boolean> {
    const result = (await this.deliveries.query(
      `UPDATE notification_delivery d
       SET d.status = 'SENDING', d.failure = NULL, d.owner_id = ?, d.updated_at = CURRENT_TIMESTAMP(3)
       WHERE d.run_id = ? AND d.target_name = ? AND ${TAKEOVER_CONDITION}`,
      [this.owner.id, runId, targetName, staleMs * 1000],
    )) as { affectedRows: number };
    return result.affectedRows === 1;
  }

  /**
   * Alert-started runs that ended between `horizonMs` and `graceMs` ago with no delivery row for some of
   * `targetNames`: their replica stopped before claiming, or the claim could not be stored. Found through
   * the alert notifications that started them (indexed by time), at most `limit`.
   */
  async owedAlertRuns(
    targetNames: readonly string[],
    graceMs: number,
    horizonMs: number,
    limit: number,
  ): Promise<OwedAlertRun[]> {
    if (targetNames.length === 0) return [];
    const rows = (await this.deliveries.query(
      `SELECT r.run_id, r.session_id, s.alert_labels,
              (SELECT GROUP_CONCAT(d.target_name SEPARATOR '\n') FROM notification_delivery d
               WHERE d.run_id = r.run_id) AS claimed
       FROM alert_notification n
       JOIN diagnosis_run r ON r.run_id = n.run_id
       JOIN chat_session s ON s.session_id = r.session_id
       WHERE n.received_at >= NOW(3) - INTERVAL ? MICROSECOND
         AND n.outcome = 'INVESTIGATION_STARTED'
         AND r.status <> 'RUNNING'
         AND r.ended_at < NOW(3) - INTERVAL ? MICROSECOND
         AND (SELECT COUNT(*) FROM notification_delivery d
              WHERE d.run_id = r.run_id AND d.target_name IN (?)) < ?
       ORDER BY n.received_at LIMIT ?`,
      [horizonMs * 1000, graceMs * 1000, targetNames, targetNames.length, limit],
    )) as { run_id: string; session_id: string; alert_labels: unknown; claimed: string | null }[];
    return rows.map((row) => {
      const claimed = new Set(row.claimed === null ? [] : row.claimed.split('\n'));
      return {
        runId: row.run_id,
        sessionId: row.session_id,
        alertLabels: labelsOf(row.alert_labels),
        missingTargets: targetNames.filter((name) => !claimed.has(name)),
      };
    });
  }

  /** A run's deliveries in target order. */
  async listForRun(runId: string): Promise<NotificationDelivery[]> {
    const rows = await this.deliveries.find({ where: { runId }, order: { targetName: 'ASC' } });
    return rows.map((row) => ({
      targetName: row.targetName,
      targetKind: row.targetKind,
      trigger: row.trigger,
      status: row.status,
      failure: row.failure,
      attempts: row.attempts,
      lastHttpStatus: row.lastHttpStatus,
      vendorCode: row.vendorCode === null ? null : Number(row.vendorCode),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    }));
  }
}

/** An alert session's stored labels (a JSON object of strings); anything else reads as none. */
function labelsOf(value: unknown): Record<string, string> | null {
  let parsed: unknown;
  try {
    parsed = jsonTransformer.from(value);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  return Object.fromEntries(
    Object.entries(parsed as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}
