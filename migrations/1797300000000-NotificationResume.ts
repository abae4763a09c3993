import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The notification sweeper's lookup (docs/notifications.md): deliveries by state and age — an OWED row,
 * or a claim a stopped replica left.
 */
export class NotificationResume1797300000000 implements MigrationInterface {
  name = 'NotificationResume1797300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX idx_notification_delivery_status_updated ON notification_delivery (status, updated_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX idx_notification_delivery_status_updated ON notification_delivery');
  }
}
