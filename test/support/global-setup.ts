import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import Redis from 'ioredis';
import { TEST_KEYS, TEST_MYSQL, TEST_REDIS } from './test-env';

/**
 * Checks that the real MariaDB/MySQL and Redis are up, creates this run's own databases and hands
 * their names to the test files through the environment. Nothing is mocked.
 */
export default async function globalSetup(): Promise<void> {
  const suffix = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const serviceDb = `superbiz_e2e_${suffix}`;

  let connection;
  try {
    connection = await createConnection({ ...TEST_MYSQL, connectTimeout: 3000 });
  } catch (error) {
    throw new Error(
      `e2e tests need MySQL/MariaDB at ${TEST_MYSQL.host}:${TEST_MYSQL.port} (${(error as Error).message}); ` +
        'start it (see .ci/run) or set TEST_MYSQL_HOST/PORT/USER/PASSWORD',
    );
  }
  try {
    await connection.query(
      `CREATE DATABASE \`${serviceDb}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await connection.end();
  }

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
      `e2e tests need Redis at ${TEST_REDIS.host}:${TEST_REDIS.port} (${(error as Error).message}); start it (see .ci/run)`,
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
    REDIS_HOST: TEST_REDIS.host,
    REDIS_PORT: String(TEST_REDIS.port),
    ORDER_MYSQL_URL: `mysql://${TEST_MYSQL.host}:${TEST_MYSQL.port}/order_db`,
    ORDER_MYSQL_USERNAME: 'superbiz_reader',
    ORDER_MYSQL_PASSWORD: 'e2e-reader-password',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    LOG_BACKEND: 'mock',
    AUDIT_ENCRYPTION_KEYS: `e2e:${randomBytes(32).toString('base64')}`,
    API_KEYS: `trace_reader=${TEST_KEYS.traceReader},auditor|trace_reader=${TEST_KEYS.auditor},chat=${TEST_KEYS.chat},knowledge_admin=${TEST_KEYS.knowledgeAdmin},chat|knowledge_admin|trace_reader=${TEST_KEYS.operator},chat|trace_reader=${TEST_KEYS.sessionOwner}`,
    TEST_CHAT_API_KEY: TEST_KEYS.chat,
  });
}
