import { randomBytes } from 'node:crypto';
import { HarnessConfig } from '../config/harness.config';
import { RedisConfig } from '../config/redis.config';
import { InvocationStore } from '../evidence/invocation-store';
import { RedisThrottlerStorage } from './redis-throttler-storage';
import { createRedisClient, HarnessRedis } from './redis.provider';

/** What the configured Redis user may do, command group by command group (`npm run doctor`). */
export interface RedisAccess {
  /** null when connected; else why not (safe to print: no address, no password). */
  connectError: string | null;
  ping: boolean;
  /** The evidence store's own script (EVAL of EXISTS/STRLEN/INCRBY/DECRBY/TTL/EXPIRE/SET), GET, and SET/EXISTS of the run marker, on its keys. */
  evidence: boolean;
  /** The shared rate limit's own script on its keys. */
  throttle: boolean;
}

const PROBE_TTL_SECONDS = 60;
const AUTH_REFUSED = /WRONGPASS|NOAUTH|invalid username-password|invalid password/i;

function connected(redis: HarnessRedis, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve(null);
    });
    redis.once('error', (error: Error & { code?: string }) => {
      clearTimeout(timer);
      const auth = AUTH_REFUSED.test(error.message);
      resolve(
        auth ? 'REDIS_USERNAME/REDIS_PASSWORD were rejected' : `connection failed (${error.code ?? 'error'})`,
      );
    });
  });
}

/**
 * Runs the commands the service runs, through the Harness' own stores, on a probe run id: one evidence
 * record (expires after a minute, the store never deletes) and one rate-limit hit under a probe client.
 */
export async function probeRedisAccess(
  redisConfig: RedisConfig,
  harness: HarnessConfig,
): Promise<RedisAccess> {
  const redis = createRedisClient(redisConfig);
  const access: RedisAccess = { connectError: null, ping: false, evidence: false, throttle: false };
  // Without a ready check the connection is "ready" before AUTH is answered, and a refused AUTH leaves
  // it as the default user: the refusal arrives as an error event, before the PING reply.
  let authRefused = false;
  redis.on('error', (error: Error) => {
    if (AUTH_REFUSED.test(error.message)) authRefused = true;
  });
  try {
    access.connectError = await connected(redis, redisConfig.connectTimeoutMs + 500);
    if (access.connectError !== null) return access;
    try {
      access.ping = (await redis.ping()) === 'PONG';
    } catch (error) {
      if (AUTH_REFUSED.test((error as Error).message)) authRefused = true;
      access.ping = false;
    }
    if (authRefused) {
      access.connectError = 'REDIS_USERNAME/REDIS_PASSWORD were rejected';
      access.ping = false;
      return access;
    }
    const runId = `doctor-${randomBytes(6).toString('hex')}`;
    const store = new InvocationStore(redis, {
      ...harness,
      evidence: { ...harness.evidence, ttlSeconds: PROBE_TTL_SECONDS },
    });
    try {
      await store.openRun(runId);
      const written = await store.create({
        tool_call_id: 'probe',
        run_id: runId,
        tool_name: 'doctor_probe',
        request: {},
        raw_response: null,
        agent_result: null,
        status: 'PROJECTING',
        evidence_status: null,
        error_code: null,
        started_at: new Date().toISOString(),
        ended_at: null,
      });
      access.evidence =
        written === 'OK' &&
        (await store.get(runId, 'probe'))?.run_id === runId &&
        (await store.runIntact(runId));
    } catch {
      access.evidence = false;
    }
    const hit = await new RedisThrottlerStorage(redis, redisConfig).increment(
      runId,
      PROBE_TTL_SECONDS * 1000,
      10,
      0,
      'doctor',
    );
    // The storage lets a request through with 0 hits when Redis refuses; a counted hit is at least 1.
    access.throttle = hit.totalHits >= 1;
    return access;
  } finally {
    redis.disconnect();
  }
}
