import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The SHA-256 of an uploaded runbook's bytes, so a re-upload of the same content is answered 409 naming
 * the stored document. Unique: two concurrent uploads of the same bytes cannot both be stored. Rows from
 * before this migration keep NULL (MariaDB allows many NULLs in a unique index); they are not backfilled.
 */
export class KnowledgeDocumentContentHash1796440000000 implements MigrationInterface {
  name = 'KnowledgeDocumentContentHash1796440000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE knowledge_document ADD COLUMN content_sha256 CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX idx_knowledge_document_content_sha256 ON knowledge_document (content_sha256)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX idx_knowledge_document_content_sha256 ON knowledge_document');
    await queryRunner.query('ALTER TABLE knowledge_document DROP COLUMN content_sha256');
  }
}
