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

/** Failures a stopped replica leaves, which another one finishes (the run had ended, the target did not answer no). */
const RESUMABLE_FAILURES = ['SHUTDOWN', 'RUN_NOT_FINISHED'] as const satisfies readonly NotificationFailure[];

/** How old a row must be before another replica may take it over (see TAKEOVER_CONDITION). */
export interface TakeoverAges {
  /** A SENDING claim older than this was left by a replica that stopped (the longest possible try). */
  staleMs: number;
  /** An OWED row of a run that ended longer ago than this was left (its replica claims at once). */
  owedGraceMs: number;
}

/**
 * Which rows may be taken over, as SQL over `d` (notification_delivery) with two parameters, the SENDING
 * and OWED ages in microseconds: an OWED row whose run ended longer ago than the grace (its replica stopped
 * before claiming), a SENDING claim older than the longest possible try (its replica died), or a delivery
 * a replica gave up for a resumable reason; always only once the run has left RUNNING.
 */
const TAKEOVER_CONDITION = `((d.status = 'SENDING' AND d.updated_at < NOW(3) - INTERVAL ? MICROSECOND)
    OR d.status = 'OWED'
    OR (d.status = 'FAILED' AND d.failure IN (${RESUMABLE_FAILURES.map((code) => `'${code}'`).join(', ')})))
  AND EXISTS (SELECT 1 FROM diagnosis_run r WHERE r.run_id = d.run_id AND r.status <> 'RUNNING'
    AND (d.status <> 'OWED' OR r.ended_at < NOW(3) - INTERVAL ? MICROSECOND))`;

const takeoverParams = (ages: TakeoverAges) => [ages.staleMs * 1000, ages.owedGraceMs * 1000];

/** The notification_delivery rows: a replica's claim on a (run, target) before it sends, then the result. */
@Injectable()
export class NotificationDeliveryRepository {
  constructor(
    @InjectRepository(NotificationDeliveryEntity)
    private readonly deliveries: Repository<NotificationDeliveryEntity>,
    private readonly owner: RunOwner,
  ) {}

  /**
   * Records that a run's end is owed to `targets` (an alert-started run, at its start): OWED rows, taken
   * by `claim` when the run ends, or by another replica's sweep when this one stopped before that.
   */
  async owe(
    runId: string,
    trigger: NotificationTrigger,
    targets: readonly { name: string; kind: NotificationKind }[],
  ): Promise<void> {
    if (targets.length === 0) return;
    await this.deliveries.query(
      `INSERT IGNORE INTO notification_delivery (run_id, target_name, target_kind, run_trigger, status, owner_id)
       VALUES ${targets.map(() => "(?, ?, ?, ?, 'OWED', ?)").join(', ')}`,
      targets.flatMap((target) => [runId, target.name, target.kind, trigger, this.owner.id]),
    );
  }

  /**
   * Claims the (run, target) for this replica: its OWED row, or a new row. True when this replica now
   * holds it; false when any replica (this one included) had already claimed it — then nothing may be sent.
   */
  async claim(claim: DeliveryClaim): Promise<boolean> {
    const owed = (await this.deliveries.query(
      `UPDATE notification_delivery SET status = 'SENDING', owner_id = ?, updated_at = CURRENT_TIMESTAMP(3)
       WHERE run_id = ? AND target_name = ? AND status = 'OWED'`,
      [this.owner.id, claim.runId, claim.targetName],
    )) as { affectedRows: number };
    if (owed.affectedRows === 1) return true;
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
  async resumable(ages: TakeoverAges, horizonMs: number, limit: number): Promise<ResumableDelivery[]> {
    const rows = (await this.deliveries.query(
      `SELECT d.run_id, d.target_name, d.run_trigger, r.session_id, s.alert_labels
       FROM notification_delivery d
       JOIN diagnosis_run r ON r.run_id = d.run_id
       JOIN chat_session s ON s.session_id = r.session_id
       WHERE ${TAKEOVER_CONDITION} AND r.ended_at >= NOW(3) - INTERVAL ? MICROSECOND
       ORDER BY d.updated_at LIMIT ?`,
      [...takeoverParams(ages), horizonMs * 1000, limit],
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
  async takeOver(runId: string, targetName: string, ages: TakeoverAges): Promise<boolean> {
    const result = (await this.deliveries.query(
      `UPDATE notification_delivery d
       SET d.status = 'SENDING', d.failure = NULL, d.owner_id = ?, d.updated_at = CURRENT_TIMESTAMP(3)
       WHERE d.run_id = ? AND d.target_name = ? AND ${TAKEOVER_CONDITION}`,
      [this.owner.id, runId, targetName, ...takeoverParams(ages)],
    )) as { affectedRows: number };
    return result.affectedRows === 1;
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
