import { MigrationInterface, QueryRunner } from 'typeorm';

/** Each run's owning replica and its lease, so a surviving replica closes a crashed one's runs. */
export class RunOwnerLease1796276817944 implements MigrationInterface {
  name = 'RunOwnerLease1796276817944';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE diagnosis_run ADD COLUMN owner_id VARCHAR(64) NULL, ADD COLUMN lease_expires_at DATETIME(3) NULL',
    );
    await queryRunner.query(
      'CREATE INDEX idx_diagnosis_run_status_lease ON diagnosis_run (status, lease_expires_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX idx_diagnosis_run_status_lease ON diagnosis_run');
    await queryRunner.query('ALTER TABLE diagnosis_run DROP COLUMN lease_expires_at, DROP COLUMN owner_id');
  }
}
