import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { TEST_MYSQL } from './test-env';

/** The service database of one jest worker (JEST_WORKER_ID counts from 1). */
export function workerDatabase(base: string, workerId: string): string {
  if (!base) throw new Error('E2E_SERVICE_DB_BASE is not set: the global setup did not run');
  return `${base}_w${workerId}`;
}

/**
 * Creates a service database on the test server and applies every migration to it (the global setup
 * makes one per jest worker). Names starting with the run's prefix are dropped by the global teardown.
 */
export async function createServiceDatabase(database: string): Promise<void> {
  const connection = await createConnection({ ...TEST_MYSQL, connectTimeout: 3000 });
  try {
    await connection.query(
      `CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await connection.end();
  }
  const dataSource = new DataSource({
    type: process.env.DB_TYPE === 'mysql' ? 'mysql' : 'mariadb',
    ...TEST_MYSQL,
    username: TEST_MYSQL.user,
    database,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    logging: false,
  });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
}
