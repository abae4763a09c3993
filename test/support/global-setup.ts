import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { servicesMode, startTestServices, TestServices } from './containers';
import { TEST_KEYS, TEST_MYSQL, TEST_REDIS } from './test-env';

/** Handed to the global teardown, which Jest runs in this same process. */
export const E2E_SERVICES = Symbol.for('superbiz.e2e.services');
type WithServices = typeof globalThis & { [E2E_SERVICES]?: TestServices };
/** Set once the services are up: the setup of the next project finds it and does nothing. */
export const E2E_READY = Symbol.for('superbiz.e2e.ready');

/**
 * Starts MariaDB/MySQL and Redis with Testcontainers (or checks the machine's own with
 * TEST_SERVICES=external), creates and migrates this run's own database once, and hands the
 * connection settings to the test files through the environment. Nothing is mocked.
 */
export default async function globalSetup(): Promise<void> {
  // Every service-backed jest project names this setup; Jest runs it per project, in this one process.
  const state = globalThis as typeof globalThis & { [E2E_READY]?: true };
  if (state[E2E_READY]) return;
  state[E2E_READY] = true;
  if (servicesMode(process.env.TEST_SERVICES) === 'containers') {
    let services: TestServices;
    try {
      services = await startTestServices();
    } catch (error) {
      throw new Error(
        `e2e tests start MySQL and Redis with Testcontainers and need a Docker engine (${(error as Error).message}); ` +
          'start Docker (on a Debian CI machine: eval "$(scripts/ensure-docker.sh)") or run with TEST_SERVICES=external',
      );
    }
    (globalThis as WithServices)[E2E_SERVICES] = services;
    Object.assign(process.env, {
      TEST_MYSQL_HOST: services.mysql.host,
      TEST_MYSQL_PORT: String(services.mysql.port),
      TEST_MYSQL_USER: services.mysql.user,
      TEST_MYSQL_PASSWORD: services.mysql.password,
      TEST_REDIS_HOST: services.redis.host,
      TEST_REDIS_PORT: String(services.redis.port),
    });
  }

  const suffix = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const serviceDb = `superbiz_e2e_${suffix}`;

  let connection;
  try {
    connection = await createConnection({ ...TEST_MYSQL, connectTimeout: 3000 });
  } catch (error) {
    throw new Error(
      `e2e tests need MySQL/MariaDB at ${TEST_MYSQL.host}:${TEST_MYSQL.port} (${(error as Error).message}); ` +
        'start it (scripts/ensure-services.sh) or set TEST_MYSQL_HOST/PORT/USER/PASSWORD',
    );
  }
  try {
    await connection.query(
      `CREATE DATABASE \`${serviceDb}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await connection.end();
  }
  await migrate(serviceDb);

  const redis = new Redis({
    ...TEST_REDIS,
    lazyConnect: true,
    retryStrategy: () => null,
    connectTimeout: 3000,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(
      `e2e tests need Redis at ${TEST_REDIS.host}:${TEST_REDIS.port} (${(error as Error).message}); start it (scripts/ensure-services.sh)`,
    );
  } finally {
    redis.disconnect();
  }

  Object.assign(process.env, {
    E2E_SERVICE_DB: serviceDb,
    DB_HOST: TEST_MYSQL.host,
    DB_PORT: String(TEST_MYSQL.port),
    DB_USER: TEST_MYSQL.user,
    DB_PASSWORD: TEST_MYSQL.password,
    DB_NAME: serviceDb,
    // Migrated once above; every app the files boot finds the schema ready.
    DB_MIGRATIONS_RUN: 'false',
    REDIS_HOST: TEST_REDIS.host,
    REDIS_PORT: String(TEST_REDIS.port),
    ORDER_MYSQL_URL: `mysql://${TEST_MYSQL.host}:${TEST_MYSQL.port}/order_db`,
    ORDER_MYSQL_USERNAME: 'superbiz_reader',
    ORDER_MYSQL_PASSWORD: 'e2e-reader-password',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    LOG_BACKEND: 'mock',
    AUDIT_ENCRYPTION_KEYS: `e2e:${randomBytes(32).toString('base64')}`,
    API_KEYS: `trace_reader=${TEST_KEYS.traceReader},auditor|trace_reader=${TEST_KEYS.auditor},auditor=${TEST_KEYS.auditorOnly},chat=${TEST_KEYS.chat},knowledge_admin=${TEST_KEYS.knowledgeAdmin},chat|knowledge_admin|trace_reader=${TEST_KEYS.operator},chat|trace_reader=${TEST_KEYS.sessionOwner},metrics_read=${TEST_KEYS.metrics},alert_ingest=${TEST_KEYS.alertIngest}`,
    TEST_CHAT_API_KEY: TEST_KEYS.chat,
  });
}

async function migrate(database: string): Promise<void> {
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
