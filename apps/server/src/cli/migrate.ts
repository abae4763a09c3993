import 'reflect-metadata';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions, databaseConfig, DatabaseConfig, withMigrationLock } from '@app/trace';

async function createDatabaseIfMissing(config: DatabaseConfig): Promise<void> {
  const connection = await createConnection({
    host: config.host,
    port: config.port,
    user: config.username,
    password: config.password,
    connectTimeout: config.connectTimeoutMs,
  });
  try {
    await connection.query(
      `CREATE DATABASE IF NOT EXISTS ${connection.escapeId(config.database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await connection.end();
  }
}

/**
 * `npm run migration:run` / `migration:revert`: the same DataSource definition the app uses.
 * `--create-database` first creates the configured database (first start of the demo).
 * Both commands hold the database's named migration lock, like the app's start-up.
 */
async function main(command: string | undefined, flags: string[]): Promise<void> {
  if ((command !== 'run' && command !== 'revert') || flags.some((flag) => flag !== '--create-database')) {
    throw new Error('usage: migrate run|revert [--create-database]');
  }
  const config = databaseConfig();
  if (flags.includes('--create-database')) await createDatabaseIfMissing(config);
  const dataSource = await new DataSource(buildDataSourceOptions(config)).initialize();
  try {
    await withMigrationLock(dataSource, config.migrationsLockTimeoutSeconds, async () => {
      if (command === 'run') {
        const applied = await dataSource.runMigrations({ transaction: 'each' });
        process.stdout.write(
          `applied ${applied.length} migration(s)${applied.map((m) => `\n  ${m.name}`).join('')}\n`,
        );
      } else {
        await dataSource.undoLastMigration({ transaction: 'each' });
        process.stdout.write('reverted the last migration\n');
      }
    });
  } finally {
    await dataSource.destroy();
  }
}

main(process.argv[2], process.argv.slice(3)).catch((error: unknown) => {
  process.stderr.write(`migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
