import { GenericContainer, StartedTestContainer, Wait } from 'testcontainers';
import { freePort } from './free-port';
import { scaled } from './test-timeouts';

/**
 * The e2e suite's MySQL-compatible database and Redis, started with Testcontainers (the default) or
 * the machine's own services (`TEST_SERVICES=external`).
 *
 * Images: `TEST_MYSQL_IMAGE` (default `mariadb:11.4`) and `TEST_REDIS_IMAGE` (default `redis:7-alpine`)
 * from the registry on a normal machine; scripts/ensure-docker.sh points both at a locally built image
 * where no registry is reachable. `TEST_CONTAINER_NETWORK=host` runs the containers on the host's
 * network on free loopback ports instead of mapped ports (no bridge networks on that machine kind).
 */
export interface TestServices {
  mysql: { host: string; port: number; user: string; password: string };
  redis: { host: string; port: number };
  /** Stops what this module started; a no-op for external services. */
  stop(): Promise<void>;
}

const MYSQL_ROOT_PASSWORD = 'e2e-root-password';

export type ServicesMode = 'containers' | 'external';

/** `TEST_SERVICES`: unset or `containers` -> Testcontainers, `external` -> the machine's services. */
export function servicesMode(value: string | undefined): ServicesMode {
  if (value === undefined || value === '' || value === 'containers') return 'containers';
  if (value === 'external') return 'external';
  throw new Error(`TEST_SERVICES must be "containers" or "external", got "${value}"`);
}

export async function startTestServices(env: NodeJS.ProcessEnv = process.env): Promise<TestServices> {
  const hostNetwork = env.TEST_CONTAINER_NETWORK === 'host';
  const mysqlImage = env.TEST_MYSQL_IMAGE || 'mariadb:11.4';
  const redisImage = env.TEST_REDIS_IMAGE || 'redis:7-alpine';
  const [mysqlPort, redisPort] = hostNetwork ? [await freePort(), await freePort()] : [3306, 6379];

  const mysqlArgs = [
    '--character-set-server=utf8mb4',
    '--collation-server=utf8mb4_unicode_ci',
    ...(hostNetwork ? [`--port=${mysqlPort}`, '--bind-address=127.0.0.1'] : ['--bind-address=0.0.0.0']),
  ];
  const redisArgs = ['redis-server', '--save', '', '--appendonly', 'no'];
  if (hostNetwork) redisArgs.push('--port', String(redisPort), '--bind', '127.0.0.1');

  const withNetwork = (container: GenericContainer, port: number): GenericContainer =>
    hostNetwork ? container.withNetworkMode('host') : container.withExposedPorts(port);

  const [mysql, redis] = await Promise.all([
    withNetwork(
      new GenericContainer(mysqlImage)
        .withEnvironment({ MARIADB_ROOT_PASSWORD: MYSQL_ROOT_PASSWORD })
        .withCommand(mysqlArgs)
        // The official image's first start runs a temporary server without networking, so a TCP
        // ping succeeds only once the real server listens.
        .withWaitStrategy(
          Wait.forSuccessfulCommand(
            `mariadb-admin ping --silent -h 127.0.0.1 -P ${mysqlPort} -uroot -p${MYSQL_ROOT_PASSWORD}`,
          ).withStartupTimeout(scaled(120_000)),
        ),
      mysqlPort,
    ).start(),
    withNetwork(
      new GenericContainer(redisImage)
        .withCommand(redisArgs)
        .withWaitStrategy(
          Wait.forLogMessage(/Ready to accept connections/).withStartupTimeout(scaled(60_000)),
        ),
      redisPort,
    ).start(),
  ]);

  const endpoint = (container: StartedTestContainer, port: number) => ({
    host: container.getHost(),
    port: hostNetwork ? port : container.getMappedPort(port),
  });
  process.stderr.write(
    `e2e services (Testcontainers): ${mysqlImage} ${mysql.getId().slice(0, 12)} on ` +
      `${JSON.stringify(endpoint(mysql, mysqlPort))}, ${redisImage} ${redis.getId().slice(0, 12)} on ` +
      `${JSON.stringify(endpoint(redis, redisPort))}\n`,
  );
  return {
    mysql: { ...endpoint(mysql, mysqlPort), user: 'root', password: MYSQL_ROOT_PASSWORD },
    redis: endpoint(redis, redisPort),
    async stop() {
      await Promise.all([mysql.stop({ timeout: 5_000 }), redis.stop({ timeout: 5_000 })]);
    },
  };
}
