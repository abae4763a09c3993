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
    // The run journal sends each transaction as one packet (RunJournalRepository). Every statement this
    // service sends to its own database is its own text with bound values; the business data sources
    // that run query_mysql have their own pools with multi-statements off.
    multipleStatements: true,
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
  try {
    await refuseNoBackslashEscapes(dataSource);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
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

/**
 * The driver binds values by escaping them with backslashes, which a server in NO_BACKSLASH_ESCAPES mode
 * reads differently: a quote in a user's question could end its string early, and with multi-statement
 * packets (the run journal, the admission writes) start a statement of its own. Such a server is refused
 * at start-up, naming the setting.
 */
export async function refuseNoBackslashEscapes(dataSource: DataSource): Promise<void> {
  const [row] = (await dataSource.query('SELECT @@SESSION.sql_mode AS mode')) as { mode: string | null }[];
  if ((row?.mode ?? '').toUpperCase().split(',').includes('NO_BACKSLASH_ESCAPES'))
    throw new Error(
      "the service database runs with sql_mode NO_BACKSLASH_ESCAPES, which breaks the driver's escaping of bound values; remove it from the server's sql_mode (DB_HOST)",
    );
}
