import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The notification sweeper's lookups (docs/notifications.md): deliveries by state and age (a claim a
 * stopped replica left), and alert notifications by time (alert-started runs that ended with no
 * delivery claimed).
 */
export class NotificationResume1797300000000 implements MigrationInterface {
  name = 'NotificationResume1797300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX idx_notification_delivery_status_updated ON notification_delivery (status, updated_at)',
    );
    await queryRunner.query(
      'CREATE INDEX idx_alert_notification_received ON alert_notification (received_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX idx_alert_notification_received ON alert_notification');
    await queryRunner.query('DROP INDEX idx_notification_delivery_status_updated ON notification_delivery');
  }
}
