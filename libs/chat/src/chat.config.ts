import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigValidationError, validateEnv } from '@app/config';

export class ChatEnv {
  /** Runs streaming at once; more wait in the queue; beyond that the endpoint answers 503. */
  @IsInt() @Min(1) @Max(10_000) CHAT_MAX_IN_FLIGHT: number = 32;
  @IsInt() @Min(0) @Max(100_000) CHAT_MAX_QUEUE: number = 64;
  /**
   * The most running + queued places one API key may hold; its next request gets 429. Unset: a quarter of
   * CHAT_MAX_IN_FLIGHT + CHAT_MAX_QUEUE (at least 1), so one caller can never take the whole service.
   */
  @IsOptional() @IsInt() @Min(1) @Max(110_000) CHAT_MAX_PER_KEY?: number;
  @IsInt() @Min(1) @Max(3600) CHAT_RETRY_AFTER_SECONDS: number = 5;
  /** SSE comment lines that keep proxies from closing an idle stream. */
  @IsInt() @Min(1000) @Max(120_000) CHAT_HEARTBEAT_MS: number = 15_000;
}

export const chatConfig = registerAs('chat', () => {
  const env = validateEnv(ChatEnv);
  const places = env.CHAT_MAX_IN_FLIGHT + env.CHAT_MAX_QUEUE;
  const maxPerKey = env.CHAT_MAX_PER_KEY ?? Math.max(1, Math.ceil(places / 4));
  if (maxPerKey > places) {
    throw new ConfigValidationError([
      `CHAT_MAX_PER_KEY (${maxPerKey}) must be at most CHAT_MAX_IN_FLIGHT + CHAT_MAX_QUEUE (${places})`,
    ]);
  }
  return {
    maxInFlight: env.CHAT_MAX_IN_FLIGHT,
    maxQueue: env.CHAT_MAX_QUEUE,
    maxPerKey,
    retryAfterSeconds: env.CHAT_RETRY_AFTER_SECONDS,
    heartbeatMs: env.CHAT_HEARTBEAT_MS,
  };
});
export type ChatConfig = ConfigType<typeof chatConfig>;
