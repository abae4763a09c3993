import { Inject, Injectable, Logger } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { redisConfig, RedisConfig } from '../config/redis.config';
import { HARNESS_REDIS, HarnessRedis } from './redis.provider';

export interface ThrottlerStorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/**
 * `count` hits of one client against one throttler, atomically and with the outcome of taking them one
 * after the other: a window counter that expires `ttl` ms after its first hit, and a block flag set for
 * `blockDuration` ms once the limit is passed. While the flag is set no hit is counted; the hit that passes
 * the limit sets it, and the hits after it in the same call are blocked uncounted. Both keys share a hash
 * tag, so the script runs on one Redis Cluster slot. Replies: the count before the call, the hits it
 * counted, the window's remaining ms, whether the hits from the last counted one on are blocked, and the
 * block's remaining ms.
 */
const HITS = `
local blocked = redis.call('PTTL', KEYS[2])
local before = tonumber(redis.call('GET', KEYS[1]) or '0')
if blocked > 0 then
  return {before, 0, math.max(redis.call('PTTL', KEYS[1]), 0), 1, blocked}
end
local count = tonumber(ARGV[4])
local limit = tonumber(ARGV[2])
local passing = math.min(math.max(limit - before, 0), count)
local counted = passing
if passing < count then counted = passing + 1 end
local hits = redis.call('INCRBY', KEYS[1], counted)
if hits == counted then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local remaining = redis.call('PTTL', KEYS[1])
if remaining < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  remaining = tonumber(ARGV[1])
end
if passing < count then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  return {before, counted, remaining, 1, tonumber(ARGV[3])}
end
return {before, counted, remaining, 0, 0}
`;

/** What the script answered for one call: see HITS. */
export type HitsReply = [
  before: number,
  counted: number,
  remainingMs: number,
  blocked: number,
  blockMs: number,
];

/**
 * The record of the `index`-th (0-based) of the hits one script call took, as if each had been its own
 * call in that order: counted hits see the count so far; once the block is set (or was set before the
 * call), a hit is blocked and sees the count as it stands.
 */
export function recordOfHit(reply: HitsReply, index: number): ThrottlerStorageRecord {
  const [before, counted, remainingMs, blocked, blockMs] = reply;
  const isBlocked = blocked === 1 && index >= counted - 1;
  return {
    totalHits: before + Math.min(index + 1, counted),
    timeToExpire: Math.ceil(remainingMs / 1000),
    isBlocked,
    timeToBlockExpire: isBlocked ? Math.ceil(blockMs / 1000) : 0,
  };
}

/** The hits of one client against one throttler waiting for the next flush. */
interface PendingHits {
  keys: [hits: string, blocked: string];
  args: [ttl: string, limit: string, blockDuration: string];
  waiters: ((record: ThrottlerStorageRecord) => void)[];
}

const NOT_ENFORCED: ThrottlerStorageRecord = {
  totalHits: 0,
  timeToExpire: 0,
  isBlocked: false,
  timeToBlockExpire: 0,
};

/**
 * Throttler storage shared by every replica through the Harness Redis, so N replicas enforce one limit
 * per client. When Redis cannot answer, the request is let through (and a warning logged once): the
 * limit protects capacity, and a Redis outage must not turn into refusing every request — the chat
 * path already degrades to its documented fallback without Redis.
 *
 * Hits are sent once per turn of the event loop, not one command each: the hits that arrive while the
 * loop handles one batch of sockets are counted together (setImmediate runs after that batch), one script
 * call per client and throttler, all in one pipeline (one socket write) on a single Redis. A burst of a
 * thousand requests costs a handful of Redis writes instead of a thousand, and each request's answer is
 * the one it would have had alone (HITS). On a Cluster the calls go out one by one, each to its slot.
 */
@Injectable()
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger('Throttler');
  private unavailable = false;
  private pending = new Map<string, PendingHits>();

  constructor(
    @Inject(HARNESS_REDIS) private readonly redis: HarnessRedis,
    @Inject(redisConfig.KEY) private readonly config: RedisConfig,
  ) {}

  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const base = `${this.config.throttleKeyPrefix}:{${throttlerName}:${key}}`;
    const block = String(blockDuration > 0 ? blockDuration : ttl);
    const batchKey = `${base}\n${ttl}\n${limit}\n${block}`;
    return new Promise((resolve) => {
      let hits = this.pending.get(batchKey);
      if (!hits) {
        if (this.pending.size === 0) setImmediate(() => this.flush());
        hits = {
          keys: [`${base}:hits`, `${base}:blocked`],
          args: [String(ttl), String(limit), block],
          waiters: [],
        };
        this.pending.set(batchKey, hits);
      }
      hits.waiters.push(resolve);
    });
  }

  private flush(): void {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    const argsOf = (hits: PendingHits) => [...hits.keys, ...hits.args, String(hits.waiters.length)] as const;
    if (this.redis.isCluster || batch.length === 1) {
      for (const hits of batch) {
        this.redis.eval(HITS, 2, ...argsOf(hits)).then(
          (reply) => this.answer(hits, null, reply),
          (error: unknown) => this.answer(hits, error, null),
        );
      }
      return;
    }
    const pipeline = this.redis.pipeline();
    for (const hits of batch) pipeline.eval(HITS, 2, ...argsOf(hits));
    pipeline.exec().then(
      (replies) =>
        batch.forEach((hits, i) => this.answer(hits, replies?.[i]?.[0] ?? null, replies?.[i]?.[1])),
      (error: unknown) => batch.forEach((hits) => this.answer(hits, error, null)),
    );
  }

  private answer(hits: PendingHits, error: unknown, reply: unknown): void {
    if (error || !Array.isArray(reply)) {
      if (!this.unavailable) this.logger.warn('rate limit not enforced: Redis is not reachable');
      this.unavailable = true;
      for (const resolve of hits.waiters) resolve(NOT_ENFORCED);
      return;
    }
    this.unavailable = false;
    hits.waiters.forEach((resolve, index) => resolve(recordOfHit(reply as HitsReply, index)));
  }
}
