import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The documents lists page by cursor, newest first: (status | fault_source, created_at, document_id)
 * lets a page start at its cursor instead of reading every newer row. They replace the single-column
 * indexes, which they cover as a prefix.
 */
export class KnowledgeDocumentListOrder1797200000000 implements MigrationInterface {
  name = 'KnowledgeDocumentListOrder1797200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX idx_knowledge_document_status_created ON knowledge_document (status, created_at, document_id)',
    );
    await queryRunner.query(
      'CREATE INDEX idx_knowledge_document_fault_source_created ON knowledge_document (fault_source, created_at, document_id)',
    );
    await queryRunner.query('DROP INDEX idx_knowledge_document_status ON knowledge_document');
    await queryRunner.query('DROP INDEX idx_knowledge_document_fault_source ON knowledge_document');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX idx_knowledge_document_status ON knowledge_document (status)');
    await queryRunner.query(
      'CREATE INDEX idx_knowledge_document_fault_source ON knowledge_document (fault_source)',
    );
    await queryRunner.query('DROP INDEX idx_knowledge_document_status_created ON knowledge_document');
    await queryRunner.query('DROP INDEX idx_knowledge_document_fault_source_created ON knowledge_document');
  }
}
