import { resolve } from 'node:path';
import { ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { EnvBoolean, EnvSection, validateEnv } from '@app/config';
import { IsTrustProxy, parseTrustProxy, TrustProxy } from './trust-proxy';

@EnvSection('server', 'Service')
export class AppEnv {
  @IsInt() @Min(0) @Max(65535) PORT: number = 3000;
  @IsString() @MinLength(1) HOST: string = '0.0.0.0';
  /**
   * Connections the kernel queues before the service accepts them. Unset: derived from the chat admission
   * capacity (docs/operations-capacity.md); set, at least CHAT_MAX_IN_FLIGHT + CHAT_MAX_QUEUE. The kernel
   * caps it at net.core.somaxconn (start-up warns when that is lower).
   */
  @IsOptional() @IsInt() @Min(1) @Max(65535) HTTP_LISTEN_BACKLOG?: number;
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL: string = 'info';
  /** Demo mode: offline, stub LLM, seeded data. Relaxes nothing security-relevant unless a lib says so. */
  @EnvBoolean() @IsBoolean() DEMO_MODE: boolean = false;
  /** Rate limit of the public endpoints, per client address: THROTTLE_LIMIT requests per THROTTLE_TTL_MS. */
  @IsInt() @Min(1000) @Max(3_600_000) THROTTLE_TTL_MS: number = 60_000;
  @IsInt() @Min(1) @Max(1_000_000) THROTTLE_LIMIT: number = 600;
  /** Which proxies may set X-Forwarded-For, i.e. how the rate limit tells clients apart behind a load balancer. */
  @IsTrustProxy() TRUST_PROXY: string = 'false';
  /** The built web UI (`npm run build` writes it to dist/web), served at `/`; relative to the working directory. */
  @IsString() @MinLength(1) WEB_UI_DIR: string = 'dist/web';
}

export const appConfig = registerAs('app', () => {
  const env = validateEnv(AppEnv);
  return {
    port: env.PORT,
    host: env.HOST,
    listenBacklog: env.HTTP_LISTEN_BACKLOG,
    logLevel: env.LOG_LEVEL,
    demoMode: env.DEMO_MODE,
    throttle: { ttl: env.THROTTLE_TTL_MS, limit: env.THROTTLE_LIMIT },
    trustProxy: parseTrustProxy(env.TRUST_PROXY) as TrustProxy,
    webUiDir: resolve(env.WEB_UI_DIR),
  };
});
export type AppConfig = ConfigType<typeof appConfig>;
