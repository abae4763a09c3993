import { Inject, Injectable, Logger } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { redisConfig, RedisConfig } from '../config/redis.config';
import { HARNESS_REDIS, HarnessRedis } from './redis.provider';

interface ThrottlerStorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/**
 * One hit of one client against one throttler, atomically: a window counter that expires `ttl` ms after
 * its first hit, and a block flag set for `blockDuration` ms once the limit is passed. Both keys share
 * a hash tag, so the script runs on one Redis Cluster slot. Replies are milliseconds.
 */
const HIT = `
local blocked = redis.call('PTTL', KEYS[2])
if blocked > 0 then
  return {tonumber(redis.call('GET', KEYS[1]) or '0'), math.max(redis.call('PTTL', KEYS[1]), 0), 1, blocked}
end
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local remaining = redis.call('PTTL', KEYS[1])
if remaining < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  remaining = tonumber(ARGV[1])
end
if hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  return {hits, remaining, 1, tonumber(ARGV[3])}
end
return {hits, remaining, 0, 0}
`;

/**
 * Throttler storage shared by every replica through the Harness Redis, so N replicas enforce one limit
 * per client. When Redis cannot answer, the request is let through (and a warning logged once): the
 * limit protects capacity, and a Redis outage must not turn into refusing every request — the chat
 * path already degrades to its documented fallback without Redis.
 */
@Injectable()
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger('Throttler');
  private unavailable = false;

  constructor(
    @Inject(HARNESS_REDIS) private readonly redis: HarnessRedis,
    @Inject(redisConfig.KEY) private readonly config: RedisConfig,
  ) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const base = `${this.config.throttleKeyPrefix}:{${throttlerName}:${key}}`;
    let reply: [number, number, number, number];
    try {
      reply = (await this.redis.eval(
        HIT,
        2,
        `${base}:hits`,
        `${base}:blocked`,
        String(ttl),
        String(limit),
        String(blockDuration > 0 ? blockDuration : ttl),
      )) as [number, number, number, number];
    } catch {
      if (!this.unavailable) this.logger.warn('rate limit not enforced: Redis is not reachable');
      this.unavailable = true;
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
    this.unavailable = false;
    const [totalHits, expireMs, blocked, blockMs] = reply;
    return {
      totalHits,
      timeToExpire: Math.ceil(expireMs / 1000),
      isBlocked: blocked === 1,
      timeToBlockExpire: Math.ceil(blockMs / 1000),
    };
  }
}
