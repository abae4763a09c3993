import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { NotificationFailure, NotificationKind, NotificationStatus } from '@app/contracts';
import { MILLIS, NOW_MILLIS } from './columns';

/** One run's delivery to one notification target: the replica's claim, then its result. Never a URL or secret. */
@Entity({ name: 'notification_delivery' })
export class NotificationDeliveryEntity {
  @PrimaryColumn({ name: 'run_id', type: 'varchar', length: 64 })
  runId!: string;

  @PrimaryColumn({ name: 'target_name', type: 'varchar', length: 64 })
  targetName!: string;

  @Column({ name: 'target_kind', type: 'varchar', length: 16 })
  targetKind!: NotificationKind;

  @Column({ name: 'run_trigger', type: 'varchar', length: 16 })
  trigger!: string;

  @Column({ name: 'status', type: 'varchar', length: 16 })
  status!: NotificationStatus;

  @Column({ name: 'failure', type: 'varchar', length: 32, nullable: true })
  failure!: NotificationFailure | null;

  @Column({ name: 'attempts', type: 'int', unsigned: true, default: 0 })
  attempts!: number;

  @Column({ name: 'last_http_status', type: 'smallint', unsigned: true, nullable: true })
  lastHttpStatus!: number | null;

  /** BIGINT: vendor codes fit a JS number; mysql2 hands back a string, which the repository converts. */
  @Column({ name: 'vendor_code', type: 'bigint', nullable: true })
  vendorCode!: string | number | null;

  @Column({ name: 'owner_id', type: 'varchar', length: 64 })
  ownerId!: string;

  @Column({ name: 'created_at', ...MILLIS, default: NOW_MILLIS })
  createdAt!: Date;

  @Column({ name: 'updated_at', ...MILLIS, default: NOW_MILLIS })
  updatedAt!: Date;
}
