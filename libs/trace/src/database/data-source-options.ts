import { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../../../migrations';
import { DatabaseConfig } from '../config/database.config';
import { TRACE_ENTITIES } from '../entities';

/** One definition of the service database, shared by the Nest module and the migration CLI. */
export function buildDataSourceOptions(config: DatabaseConfig): DataSourceOptions {
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
    migrationsRun: config.migrationsRun,
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
