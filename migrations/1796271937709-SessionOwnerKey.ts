import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The API key (SHA-256 digest) that created each session: only that key may continue it or read its
 * trace. Sessions created before this migration have no owner and stay readable by auditors only.
 */
export class SessionOwnerKey1796271937709 implements MigrationInterface {
  name = 'SessionOwnerKey1796271937709';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE chat_session ADD COLUMN owner_key_digest CHAR(64) NULL AFTER session_id, ' +
        'ADD KEY idx_chat_session_owner_updated (owner_key_digest, updated_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE chat_session DROP KEY idx_chat_session_owner_updated, DROP COLUMN owner_key_digest',
    );
  }
}
