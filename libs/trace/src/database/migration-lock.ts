import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';

/** MySQL/MariaDB refuse user-level lock names longer than 64 characters. */
const MAX_LOCK_NAME_LENGTH = 64;

/**
 * One lock per database (GET_LOCK names are server-wide), readable in SHOW PROCESSLIST when it fits,
 * otherwise a hash of the database name.
 */
export function migrationLockName(database: string): string {
  const name = `superbiz:migrations:${database}`;
  if (name.length <= MAX_LOCK_NAME_LENGTH) return name;
  return `superbiz:migrations:${createHash('sha256').update(database).digest('hex').slice(0, 40)}`;
}

/**
 * Runs `action` while holding the database's named migration lock, so replicas starting together and
 * `npm run migration:run` never apply the same migration twice (TypeORM's own check-then-create of the
 * migrations table and rows races). The lock lives on one dedicated connection and is released with it.
 */
export async function withMigrationLock<T>(
  dataSource: DataSource,
  timeoutSeconds: number,
  action: () => Promise<T>,
): Promise<T> {
  const database = String(dataSource.options.database);
  const name = migrationLockName(database);
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [row] = (await runner.query('SELECT GET_LOCK(?, ?) AS acquired', [name, timeoutSeconds])) as {
      acquired: number | string | null;
    }[];
    if (Number(row?.acquired) !== 1) {
      throw new Error(
        `could not take the migration lock "${name}" within ${timeoutSeconds}s: another process is migrating database ${database} (DB_MIGRATIONS_LOCK_TIMEOUT_SECONDS)`,
      );
    }
    try {
      return await action();
    } finally {
      await runner.query('SELECT RELEASE_LOCK(?)', [name]);
    }
  } finally {
    await runner.release();
  }
}
