import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';
import { DatabaseEnv } from '@app/trace';

@EnvSection('harness', 'Redis')
export class RedisEnv {
  @IsString() @MinLength(1) REDIS_HOST: string = '127.0.0.1';
  @IsInt() @Min(1) @Max(65535) REDIS_PORT: number = 6379;
  @IsInt() @Min(0) @Max(15) REDIS_DB: number = 0;
  /** An ACL user (Redis 6+); empty means the default user. See docs/configuration.md "Redis ACL" for the minimal ACL. */
  @IsString() REDIS_USERNAME: string = '';
  @IsString() REDIS_PASSWORD: string = '';
  @IsInt() @Min(50) @Max(60_000) REDIS_COMMAND_TIMEOUT_MS: number = 2000;
  @IsInt() @Min(50) @Max(60_000) REDIS_CONNECT_TIMEOUT_MS: number = 2000;
  /** `host:port` seed nodes of a Redis Cluster, comma-separated; when set, REDIS_HOST/PORT are not used. */
  @IsString() REDIS_CLUSTER_NODES: string = '';
  /**
   * Keys of the shared rate limit; replicas of one deployment must use the same prefix. Unset: one per
   * service database, so two services sharing a Redis never share a limit.
   */
  @IsOptional() @IsString() @Matches(/^[a-z0-9:_-]{1,64}$/) REDIS_THROTTLE_KEY_PREFIX?: string;
}

export interface RedisNode {
  host: string;
  port: number;
}

/** Parses REDIS_CLUSTER_NODES; an empty value means a single server. */
export function parseClusterNodes(raw: string): RedisNode[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry, index) => {
      const match = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})$/.exec(entry);
      const port = match ? Number(match[2]) : 0;
      if (!match || port < 1 || port > 65535) {
        throw new ConfigValidationError([
          `REDIS_CLUSTER_NODES entry ${index + 1} must be host:port with a port from 1 to 65535`,
        ]);
      }
      return { host: match[1].replace(/^\[|\]$/g, ''), port };
    });
}

/** `superbiz:throttle:<service database>`, the database name lower-cased and cut to the allowed characters. */
export function defaultThrottleKeyPrefix(databaseName: string): string {
  const name = databaseName.toLowerCase().replace(/[^a-z0-9_-]/g, '_');
  return `superbiz:throttle:${name}`.slice(0, 64);
}

export const redisConfig = registerAs('redis', () => {
  const env = validateEnv(RedisEnv);
  const clusterNodes = parseClusterNodes(env.REDIS_CLUSTER_NODES);
  // A cluster has only database 0: a different REDIS_DB would silently mean something else.
  if (clusterNodes.length > 0 && env.REDIS_DB !== 0) {
    throw new ConfigValidationError(['REDIS_DB must be 0 when REDIS_CLUSTER_NODES is set']);
  }
  return {
    host: env.REDIS_HOST,
    port: env.REDIS_PORT,
    db: env.REDIS_DB,
    username: env.REDIS_USERNAME || undefined,
    password: env.REDIS_PASSWORD || undefined,
    commandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
    connectTimeoutMs: env.REDIS_CONNECT_TIMEOUT_MS,
    clusterNodes,
    throttleKeyPrefix:
      env.REDIS_THROTTLE_KEY_PREFIX ?? defaultThrottleKeyPrefix(validateEnv(DatabaseEnv).DB_NAME),
  };
});
export type RedisConfig = ConfigType<typeof redisConfig>;
