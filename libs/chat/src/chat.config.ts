import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { validateEnv } from '@app/config';

export class ChatEnv {
  /** Runs streaming at once; more wait in the queue; beyond that the endpoint answers 503. */
  @IsInt() @Min(1) @Max(10_000) CHAT_MAX_IN_FLIGHT: number = 32;
  @IsInt() @Min(0) @Max(100_000) CHAT_MAX_QUEUE: number = 64;
  @IsInt() @Min(1) @Max(3600) CHAT_RETRY_AFTER_SECONDS: number = 5;
  /** SSE comment lines that keep proxies from closing an idle stream. */
  @IsInt() @Min(1000) @Max(120_000) CHAT_HEARTBEAT_MS: number = 15_000;
}

export const chatConfig = registerAs('chat', () => {
  const env = validateEnv(ChatEnv);
  return {
    maxInFlight: env.CHAT_MAX_IN_FLIGHT,
    maxQueue: env.CHAT_MAX_QUEUE,
    retryAfterSeconds: env.CHAT_RETRY_AFTER_SECONDS,
    heartbeatMs: env.CHAT_HEARTBEAT_MS,
  };
});
export type ChatConfig = ConfigType<typeof chatConfig>;
