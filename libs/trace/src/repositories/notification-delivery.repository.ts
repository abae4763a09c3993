import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { NotificationFailure, NotificationKind, NotificationTrigger } from '@app/contracts';
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
