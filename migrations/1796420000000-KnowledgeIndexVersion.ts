import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A version stamp and a change log for the knowledge base, so a search index checks one row per search
 * and applies only the documents that changed (docs/architecture.md, knowledge base).
 */
export class KnowledgeIndexVersion1796420000000 implements MigrationInterface {
  name = 'KnowledgeIndexVersion1796420000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';
    await queryRunner.query(`CREATE TABLE knowledge_index_version (
      id TINYINT UNSIGNED NOT NULL,
      version BIGINT UNSIGNED NOT NULL,
      PRIMARY KEY (id)
    ) ${table}`);
    await queryRunner.query('INSERT INTO knowledge_index_version (id, version) VALUES (1, 0)');
    await queryRunner.query(`CREATE TABLE knowledge_change (
      version BIGINT UNSIGNED NOT NULL,
      document_id VARCHAR(64) NOT NULL,
      changed_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (version)
    ) ${table}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE knowledge_change');
    await queryRunner.query('DROP TABLE knowledge_index_version');
  }
}
