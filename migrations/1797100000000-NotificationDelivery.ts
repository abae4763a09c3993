import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per (run, notification target): the claim a replica inserts before it sends (the primary key
 * makes a second claim fail, so two replicas never deliver the same run to the same target) and then the
 * delivery's result. Removed with its run.
 */
export class NotificationDelivery1797100000000 implements MigrationInterface {
  name = 'NotificationDelivery1797100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE notification_delivery (
      run_id VARCHAR(64) NOT NULL,
      target_name VARCHAR(64) NOT NULL,
      target_kind VARCHAR(16) NOT NULL,
      run_trigger VARCHAR(16) NOT NULL,
      status VARCHAR(16) NOT NULL,
      failure VARCHAR(32) NULL,
      attempts INT UNSIGNED NOT NULL DEFAULT 0,
      last_http_status SMALLINT UNSIGNED NULL,
      vendor_code BIGINT NULL,
      owner_id VARCHAR(64) NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (run_id, target_name),
      CONSTRAINT fk_notification_delivery_run FOREIGN KEY (run_id) REFERENCES diagnosis_run (run_id) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE notification_delivery');
  }
}
