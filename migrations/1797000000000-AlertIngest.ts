import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Alert-started investigations (docs/alerts.md). chat_session gains its origin (CHAT or ALERT) and, for an
 * alert group's session, the group's common labels. alert_group holds one row per alert group: its
 * session and the dedup state every replica decides under (the row is locked FOR UPDATE for each
 * notification). alert_notification records every notification and what it started or why not.
 * alert_run_hour counts alert-started runs per clock hour (UTC) for the cap.
 */
export class AlertIngest1797000000000 implements MigrationInterface {
  name = 'AlertIngest1797000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      "ALTER TABLE chat_session ADD COLUMN origin VARCHAR(16) NOT NULL DEFAULT 'CHAT', " +
        'ADD COLUMN alert_labels JSON NULL',
    );
    await queryRunner.query(`CREATE TABLE alert_group (
      group_key_hash CHAR(64) NOT NULL,
      session_id VARCHAR(64) NOT NULL,
      group_key VARCHAR(512) NOT NULL,
      receiver VARCHAR(256) NOT NULL,
      active_run_id VARCHAR(64) NULL,
      last_run_started_at DATETIME(3) NULL,
      investigated_fingerprints JSON NULL,
      last_status VARCHAR(16) NOT NULL,
      resolved_at DATETIME(3) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (group_key_hash),
      UNIQUE KEY uq_alert_group_session (session_id),
      KEY idx_alert_group_active_run (active_run_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
    await queryRunner.query(`CREATE TABLE alert_notification (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
      group_key_hash CHAR(64) NOT NULL,
      session_id VARCHAR(64) NOT NULL,
      received_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      status VARCHAR(16) NOT NULL,
      outcome VARCHAR(32) NOT NULL,
      run_id VARCHAR(64) NULL,
      alert_count INT UNSIGNED NOT NULL,
      fingerprints JSON NOT NULL,
      PRIMARY KEY (id),
      KEY idx_alert_notification_session (session_id, received_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
    await queryRunner.query(`CREATE TABLE alert_run_hour (
      hour_start DATETIME NOT NULL,
      started INT UNSIGNED NOT NULL DEFAULT 0,
      PRIMARY KEY (hour_start)
    ) ENGINE=InnoDB`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE alert_run_hour');
    await queryRunner.query('DROP TABLE alert_notification');
    await queryRunner.query('DROP TABLE alert_group');
    await queryRunner.query('ALTER TABLE chat_session DROP COLUMN alert_labels, DROP COLUMN origin');
  }
}
