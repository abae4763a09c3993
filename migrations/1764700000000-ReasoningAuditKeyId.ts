import { MigrationInterface, QueryRunner } from 'typeorm';

/** The key that sealed each reasoning-audit row, so audit encryption keys can rotate. */
export class ReasoningAuditKeyId1764700000000 implements MigrationInterface {
  name = 'ReasoningAuditKeyId1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE agent_reasoning_audit ADD COLUMN encryption_key_id VARCHAR(32) NULL AFTER content_source',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE agent_reasoning_audit DROP COLUMN encryption_key_id');
  }
}
