import { createConnection } from 'mysql2/promise';
import { E2E_READY, E2E_SERVICES } from './global-setup';
import type { TestServices } from './containers';
import { TEST_MYSQL } from './test-env';

/**
 * Stops the containers the global setup started; with external services, drops every database this
 * run created (each e2e file may add its own with the run's prefix).
 */
export default async function globalTeardown(): Promise<void> {
  // Run once per service-backed project: the first run stops and drops everything, the others find nothing.
  const holder = globalThis as typeof globalThis & { [E2E_SERVICES]?: TestServices; [E2E_READY]?: true };
  if (!holder[E2E_READY]) return;
  const services = holder[E2E_SERVICES];
  const serviceDb = process.env.E2E_SERVICE_DB_BASE;
  delete holder[E2E_READY];
  delete holder[E2E_SERVICES];
  if (services) {
    await services.stop();
    return;
  }
  if (!serviceDb) return;
  const connection = await createConnection({ ...TEST_MYSQL, connectTimeout: 3000 });
  try {
    const [rows] = await connection.query<import('mysql2').RowDataPacket[]>(
      'SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE ?',
      [`${serviceDb}%`],
    );
    for (const row of rows) {
      await connection.query(`DROP DATABASE \`${String(row.name)}\``);
    }
  } finally {
    await connection.end();
  }
}
