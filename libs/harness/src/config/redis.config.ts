import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { validateEnv } from '@app/config';

export class RedisEnv {
  @IsString() @MinLength(1) REDIS_HOST: string = '127.0.0.1';
  @IsInt() @Min(1) @Max(65535) REDIS_PORT: number = 6379;
  @IsInt() @Min(0) @Max(15) REDIS_DB: number = 0;
  /** An ACL user (Redis 6+); empty means the default user. See the README for the minimal ACL. */
  @IsString() REDIS_USERNAME: string = '';
  @IsString() REDIS_PASSWORD: string = '';
  @IsInt() @Min(50) @Max(60_000) REDIS_COMMAND_TIMEOUT_MS: number = 2000;
  @IsInt() @Min(50) @Max(60_000) REDIS_CONNECT_TIMEOUT_MS: number = 2000;
}

export const redisConfig = registerAs('redis', () => {
  const env = validateEnv(RedisEnv);
  return {
    host: env.REDIS_HOST,
    port: env.REDIS_PORT,
    db: env.REDIS_DB,
    username: env.REDIS_USERNAME || undefined,
    password: env.REDIS_PASSWORD || undefined,
    commandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
    connectTimeoutMs: env.REDIS_CONNECT_TIMEOUT_MS,
  };
});
export type RedisConfig = ConfigType<typeof redisConfig>;
