import { DataSource, MigrationExecutor } from 'typeorm';
import { DOCUMENT_STATUSES, type DocumentStatus } from '@app/contracts';
import { KnowledgeDocumentEntity } from '../entities/knowledge-document.entity';

/** What `npm run doctor` reads from the service database; reading only, nothing is created. */
export interface ServiceDatabaseState {
  /** Names of the migrations this build has that the database has not applied, oldest first. */
  pendingMigrations: string[];
  /** Knowledge documents per status; null while the table does not exist yet (migrations pending). */
  documents: Record<DocumentStatus, number> | null;
}

export async function inspectServiceDatabase(dataSource: DataSource): Promise<ServiceDatabaseState> {
  // getPendingMigrations only reads (showMigrations would create the migrations table).
  const pending = await new MigrationExecutor(dataSource).getPendingMigrations();
  const runner = dataSource.createQueryRunner();
  let hasTable: boolean;
  try {
    hasTable = await runner.hasTable(dataSource.getMetadata(KnowledgeDocumentEntity).tableName);
  } finally {
    await runner.release();
  }
  let documents: ServiceDatabaseState['documents'] = null;
  if (hasTable) {
    const rows = await dataSource
      .getRepository(KnowledgeDocumentEntity)
      .createQueryBuilder('document')
      .select('document.status', 'status')
      .addSelect('COUNT(*)', 'count')
      .groupBy('document.status')
      .getRawMany<{ status: DocumentStatus; count: string | number }>();
    documents = Object.fromEntries(DOCUMENT_STATUSES.map((status) => [status, 0])) as Record<
      DocumentStatus,
      number
    >;
    for (const row of rows) documents[row.status] = Number(row.count);
  }
  return { pendingMigrations: pending.map((migration) => migration.name), documents };
}
