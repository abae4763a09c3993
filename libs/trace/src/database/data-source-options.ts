import { DataSource, DataSourceOptions } from 'typeorm';
import type { MysqlConnectionOptions } from 'typeorm/driver/mysql/MysqlConnectionOptions';
import { MIGRATIONS } from '@app/migrations';
import { DatabaseConfig } from '../config/database.config';
import { TRACE_ENTITIES } from '../entities';
import { withMigrationLock } from './migration-lock';

/** One definition of the service database, shared by the Nest module and the migration CLI. */
export function buildDataSourceOptions(config: DatabaseConfig): MysqlConnectionOptions {
  return {
    type: config.type,
    host: config.host,
    port: config.port,
    username: config.username,
    password: config.password,
    database: config.database,
    entities: TRACE_ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    // Never inside initialize(): TypeORM would migrate without the lock (see openServiceDataSource).
    migrationsRun: false,
    migrationsTransactionMode: 'each',
    synchronize: false,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
    connectTimeout: config.connectTimeoutMs,
    poolSize: config.poolSize,
    // Query logging would put statement bodies and parameters into the application log.
    logging: ['migration'],
    extra: { connectionLimit: config.poolSize },
  };
}

/** Name of the admission DataSource: the session and run rows a request needs before its first event. */
export const ADMISSION_DATA_SOURCE = 'admission';

/** The same database through its own small pool (DB_ADMISSION_POOL_SIZE); it never migrates. */
export function buildAdmissionDataSourceOptions(config: DatabaseConfig): MysqlConnectionOptions {
  return {
    ...buildDataSourceOptions(config),
    name: ADMISSION_DATA_SOURCE,
    migrations: [],
    poolSize: config.admissionPoolSize,
    extra: { connectionLimit: config.admissionPoolSize },
  };
}

/**
 * The app's DataSource: connected, then (with DB_MIGRATIONS_RUN) migrated under the named migration lock,
 * so replicas starting together both come up and apply every migration once.
 */
export async function openServiceDataSource(
  options: DataSourceOptions,
  config: DatabaseConfig,
): Promise<DataSource> {
  const dataSource = await new DataSource(options).initialize();
  if (config.migrationsRun) {
    try {
      await withMigrationLock(dataSource, config.migrationsLockTimeoutSeconds, () =>
        dataSource.runMigrations({ transaction: 'each' }),
      );
    } catch (error) {
      await dataSource.destroy();
      throw error;
    }
  }
  return dataSource;
}
