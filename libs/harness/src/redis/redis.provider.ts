import { Inject, Injectable, Logger, OnApplicationShutdown, Provider } from '@nestjs/common';
import Redis, { Cluster } from 'ioredis';
import { redisConfig, RedisConfig } from '../config/redis.config';

/** DI token of the one Redis client. Private to the Harness: no other lib may touch Redis. */
export const HARNESS_REDIS = Symbol('HARNESS_REDIS');

/** A single server or a Cluster (REDIS_CLUSTER_NODES); callers use only commands both support. */
export type HarnessRedis = Redis | Cluster;

export function createRedisClient(config: RedisConfig, logger?: Logger): HarnessRedis {
  const client = config.clusterNodes.length > 0 ? createClusterClient(config) : createSingleClient(config);
  let lastState = '';
  const report = (state: string, message: string) => {
    if (state !== lastState) {
      lastState = state;
      logger?.[state === 'ready' ? 'log' : 'warn'](message);
    }
  };
  client.on('ready', () => report('ready', 'Redis connection ready'));
  client.on('error', (error: Error) => report('error', `Redis unavailable: ${error.message}`));
  return client;
}

function createSingleClient(config: RedisConfig): Redis {
  return new Redis({
    host: config.host,
    port: config.port,
    db: config.db,
    username: config.username,
    password: config.password,
    // No INFO ready check and no CLIENT SETINFO: the service then needs only the commands it uses
    // (docs/configuration.md "Redis ACL"); a command refused by the ACL fails like any other Redis error.
    enableReadyCheck: false,
    disableClientInfo: true,
    connectTimeout: config.connectTimeoutMs,
    commandTimeout: config.commandTimeoutMs,
    // Commands are never retried or queued behind a dead connection: they fail at once and the
    // Harness decides. Reconnecting the socket is kept so the service recovers without a restart.
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
}

/**
 * Same contract as the single client: no offline queue, no per-command retries. The cluster's own
 * failover/CLUSTERDOWN retries are off (delay 0); MOVED/ASK redirections stay, since following them
 * is how a command reaches its slot's owner, not a retry of a failure.
 */
function createClusterClient(config: RedisConfig): Cluster {
  return new Cluster(config.clusterNodes, {
    enableOfflineQueue: false,
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 0,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    redisOptions: {
      username: config.username,
      password: config.password,
      disableClientInfo: true,
      connectTimeout: config.connectTimeoutMs,
      commandTimeout: config.commandTimeoutMs,
      maxRetriesPerRequest: 0,
    },
  });
}

@Injectable()
export class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(HARNESS_REDIS) private readonly redis: HarnessRedis) {}

  async onApplicationShutdown(): Promise<void> {
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}

export const redisProvider: Provider = {
  provide: HARNESS_REDIS,
  inject: [redisConfig.KEY],
  useFactory: (config: RedisConfig) => createRedisClient(config, new Logger('Redis')),
};
