import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import Redis from 'ioredis';
import { servicesMode, startTestServices, TestServices } from './containers';
import { createServiceDatabase, workerDatabase } from './service-database';
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
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
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

  try {
    await (await createConnection({ ...TEST_MYSQL, connectTimeout: 3000 })).end();
  } catch (error) {
    throw new Error(
      `e2e tests need MySQL/MariaDB at ${TEST_MYSQL.host}:${TEST_MYSQL.port} (${(error as Error).message}); ` +
        'start it (scripts/ensure-services.sh) or set TEST_MYSQL_HOST/PORT/USER/PASSWORD',
    );
  }
  // One per worker (test/support/worker-database.ts); none is shared by two files running at once.
  const workers = Array.from({ length: Math.max(1, globalConfig.maxWorkers) }, (_unused, index) => index + 1);
  await Promise.all(
    workers.map((worker) => createServiceDatabase(workerDatabase(serviceDb, String(worker)))),
  );

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
    // The prefix of every database this run creates; each file gets its worker's (worker-database.ts).
    E2E_SERVICE_DB_BASE: serviceDb,
    DB_HOST: TEST_MYSQL.host,
    DB_PORT: String(TEST_MYSQL.port),
    DB_USER: TEST_MYSQL.user,
    DB_PASSWORD: TEST_MYSQL.password,
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
