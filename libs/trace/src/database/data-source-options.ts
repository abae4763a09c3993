import { Logger } from '@nestjs/common';
import * as mysql2 from 'mysql2';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { MysqlConnectionOptions } from 'typeorm/driver/mysql/MysqlConnectionOptions';
import { MIGRATIONS } from '@app/migrations';
import { DatabaseConfig } from '../config/database.config';
import { TRACE_ENTITIES } from '../entities';
import { withMigrationLock } from './migration-lock';
import { PINNED_SQL_MODE, pinPoolConnections, SessionPin } from './connection-pin';

const logger = new Logger('ServiceDatabase');

/**
 * mysql2 with every pool it creates pinned (connection-pin.ts): TypeORM takes the driver module as an
 * option, so the pin is in place before the pool makes its first connection.
 */
function pinnedDriver(pin: SessionPin): typeof mysql2 {
  return {
    ...mysql2,
    createPool: (options: mysql2.PoolOptions | string) =>
      pinPoolConnections(mysql2.createPool(options as mysql2.PoolOptions), pin, (error) =>
        logger.error(error.message),
      ),
  };
}

/** One definition of the service database, shared by the Nest module and the migration CLI. */
export function buildDataSourceOptions(config: DatabaseConfig): MysqlConnectionOptions {
  return {
    type: config.type,
    driver: pinnedDriver({
      sqlMode: PINNED_SQL_MODE,
      lockWaitTimeoutSeconds: config.lockWaitTimeoutSeconds,
    }),
    connectorPackage: 'mysql2',
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
    // service sends to its own database is its own text with values bound by the driver's escaping,
    // which is sound only on a pinned connection (utf8mb4, no NO_BACKSLASH_ESCAPES): the pin above is
    // what makes multi-statement packets safe. The business data sources that run query_mysql have
    // their own pools with multi-statements off.
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
  // initialize() makes the pool's first connection, so a server that cannot be pinned stops start-up here.
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
