import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';

@EnvSection('chat', 'Chat')
export class ChatEnv {
  /** Runs streaming at once; more wait in the queue; beyond that the endpoint answers 503. */
  @IsInt() @Min(1) @Max(10_000) CHAT_MAX_IN_FLIGHT: number = 32;
  @IsInt() @Min(0) @Max(100_000) CHAT_MAX_QUEUE: number = 64;
  /**
   * The most queue places one API key may hold while every slot is busy; its next request gets 429. Free
   * slots go to any key, and a freed slot to the waiting key with the fewest runs in flight. Unset: half
   * of CHAT_MAX_QUEUE (at least 1); a single-key deployment that wants the whole queue sets it equal.
   */
  @IsOptional() @IsInt() @Min(1) @Max(100_000) CHAT_MAX_QUEUED_PER_KEY?: number;
  @IsInt() @Min(1) @Max(3600) CHAT_RETRY_AFTER_SECONDS: number = 5;
  /** SSE comment lines that keep proxies from closing an idle stream. */
  @IsInt() @Min(1000) @Max(120_000) CHAT_HEARTBEAT_MS: number = 15_000;
  /**
   * Slots alert-started runs may hold at once, out of CHAT_MAX_IN_FLIGHT and always fewer, so interactive
   * chats keep the rest. Unset: min(2, CHAT_MAX_IN_FLIGHT - 1) (0 turns alert investigations off).
   */
  @IsOptional() @IsInt() @Min(1) @Max(10_000) ALERT_MAX_IN_FLIGHT?: number;
  /** Alert-started runs waiting for a slot of their share; beyond this a notification is answered 503. */
  @IsInt() @Min(0) @Max(10_000) ALERT_MAX_QUEUE: number = 20;
  /** How often a queued stream checks its place; a `queued` event follows only when the count ahead changed. */
  @IsInt() @Min(100) @Max(60_000) CHAT_QUEUE_STATUS_MS: number = 1000;
}

/** The chat capacity settings from `source` (the process environment by default), relations checked. */
export function loadChatConfig(source: Record<string, string | undefined> = process.env) {
  const env = validateEnv(ChatEnv, source);
  const maxQueuedPerKey = env.CHAT_MAX_QUEUED_PER_KEY ?? Math.max(1, Math.ceil(env.CHAT_MAX_QUEUE / 2));
  if (env.CHAT_MAX_QUEUED_PER_KEY !== undefined && maxQueuedPerKey > env.CHAT_MAX_QUEUE) {
    throw new ConfigValidationError([
      `CHAT_MAX_QUEUED_PER_KEY (${maxQueuedPerKey}) must be at most CHAT_MAX_QUEUE (${env.CHAT_MAX_QUEUE})`,
    ]);
  }
  const alertInFlight = env.ALERT_MAX_IN_FLIGHT ?? Math.min(2, env.CHAT_MAX_IN_FLIGHT - 1);
  if (alertInFlight >= env.CHAT_MAX_IN_FLIGHT) {
    throw new ConfigValidationError([
      `ALERT_MAX_IN_FLIGHT (${alertInFlight}) must be less than CHAT_MAX_IN_FLIGHT (${env.CHAT_MAX_IN_FLIGHT}): interactive chats keep at least one slot`,
    ]);
  }
  return {
    maxInFlight: env.CHAT_MAX_IN_FLIGHT,
    alertShare: { maxInFlight: alertInFlight, maxQueue: env.ALERT_MAX_QUEUE },
    maxQueue: env.CHAT_MAX_QUEUE,
    maxQueuedPerKey,
    retryAfterSeconds: env.CHAT_RETRY_AFTER_SECONDS,
    heartbeatMs: env.CHAT_HEARTBEAT_MS,
    queueStatusMs: env.CHAT_QUEUE_STATUS_MS,
  };
}

export const chatConfig = registerAs('chat', () => loadChatConfig());
export type ChatConfig = ConfigType<typeof chatConfig>;
