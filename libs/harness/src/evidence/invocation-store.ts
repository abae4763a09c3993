import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { harnessConfig, HarnessConfig } from '../config/harness.config';
import { HARNESS_REDIS, HarnessRedis } from '../redis/redis.provider';
import { CanonicalInvocation, ReadyInvocation } from './canonical-invocation';

/** Redis could not be reached or answered with an error: the call cannot be stored, so it cannot be evidence. */
export class EvidenceStoreUnavailable extends Error {
  constructor() {
    super('evidence store unavailable');
    this.name = 'EvidenceStoreUnavailable';
  }
}

export type StoreOutcome = 'OK' | 'DUPLICATE' | 'MISSING' | 'RECORD_TOO_LARGE' | 'RUN_LIMIT';

/**
 * Why a store command failed, when trying it again can help: it timed out (a stalled server or network),
 * or the connection was down (it reconnects by itself). Anything else — an error reply, an ACL refusal —
 * is null: a retry would get the same answer.
 */
export function transientStoreFailure(error: unknown): 'TIMEOUT' | 'DISCONNECTED' | null {
  const message = error instanceof Error ? error.message : '';
  if (message === 'Command timed out') return 'TIMEOUT';
  if (/^Connection is closed|^Stream isn't writeable|ECONNRESET|ECONNREFUSED|EPIPE/.test(message)) {
    return 'DISCONNECTED';
  }
  return null;
}

/**
 * Writes one record and keeps the per-run byte counter, atomically. A create never overwrites
 * (duplicate ids are refused, except the very same record again: the replay of a create whose answer
 * was lost, so a retried create is idempotent and counts its bytes once) and sets the TTL; an update keeps the TTL it had (KEEPTTL), so nothing
 * is ever renewed. The counter gets the same TTL once, at its creation.
 */
const WRITE_RECORD = `
local size = string.len(ARGV[1])
local previous = 0
if ARGV[2] == 'create' then
  local existing = redis.call('GET', KEYS[1])
  if existing == ARGV[1] then return {'OK', tonumber(redis.call('GET', KEYS[2]) or '0')} end
  if existing then return {'DUPLICATE', 0} end
else
  previous = redis.call('STRLEN', KEYS[1])
  if previous == 0 then return {'MISSING', 0} end
end
local total = redis.call('INCRBY', KEYS[2], size - previous)
if redis.call('TTL', KEYS[2]) < 0 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
if total > tonumber(ARGV[4]) then
  redis.call('DECRBY', KEYS[2], size - previous)
  return {'RUN_LIMIT', total}
end
if ARGV[2] == 'create' then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
end
return {'OK', total}
`;

type WriteMode = 'create' | 'update';

/**
 * The canonical invocation store (docs/architecture.md "Redis canonical record"). Only the Harness uses
 * it. Every command is idempotent, so one that timed out or met a dropped connection is tried again,
 * explicitly and bounded (HARNESS_EVIDENCE_STORE_RETRIES, each logged as EVIDENCE_STORE_RETRY); past
 * that the store is unavailable (EvidenceStoreUnavailable, logged as EVIDENCE_STORE_UNAVAILABLE).
 */
@Injectable()
export class InvocationStore {
  private readonly limits: HarnessConfig['evidence'];
  private readonly logger = new Logger(InvocationStore.name);

  constructor(
    @Inject(HARNESS_REDIS) private readonly redis: HarnessRedis,
    @Inject(harnessConfig.KEY) config: HarnessConfig,
  ) {
    this.limits = config.evidence;
  }

  /** The run id is a Redis Cluster hash tag, so a record and its run's byte counter share a slot (one Lua call touches both). */
  key(runId: string, toolCallId: string): string {
    return `${this.limits.keyPrefix}:{${runId}}:${toolCallId}`;
  }

  /** Per-run byte counter; `#` cannot occur in a tool call id, so it never collides with a record key. */
  runBytesKey(runId: string): string {
    return `${this.limits.keyPrefix}:{${runId}}#bytes`;
  }

  /**
   * Per-run marker, written once when the run starts and never by a record write: a store that lost
   * its data (a restart without persistence, a flush, an eviction) lost it too, and nothing brings it back.
   */
  runMarkerKey(runId: string): string {
    return `${this.limits.keyPrefix}:{${runId}}#run`;
  }

  /** Marks the run's start in the store, with the records' TTL. */
  async openRun(runId: string): Promise<void> {
    await this.command('open run', runId, () =>
      this.redis.set(this.runMarkerKey(runId), '1', 'EX', this.limits.ttlSeconds),
    );
  }

  /** Whether the store still holds what it held for this run: false once its marker is gone. */
  async runIntact(runId: string): Promise<boolean> {
    return (await this.command('check run', runId, () => this.redis.exists(this.runMarkerKey(runId)))) === 1;
  }

  create(record: CanonicalInvocation): Promise<StoreOutcome> {
    return this.write(record, 'create');
  }

  update(record: CanonicalInvocation): Promise<StoreOutcome> {
    return this.write(record, 'update');
  }

  async get(runId: string, toolCallId: string): Promise<CanonicalInvocation | null> {
    const text = await this.command('read record', runId, () => this.redis.get(this.key(runId, toolCallId)));
    return text === null ? null : (JSON.parse(text) as CanonicalInvocation);
  }

  /** The record only when it is citable evidence of this run: READY with an agent_result. */
  async getReady(runId: string, toolCallId: string): Promise<ReadyInvocation | null> {
    const record = await this.get(runId, toolCallId);
    const ready =
      record !== null &&
      record.run_id === runId &&
      record.status === 'READY' &&
      record.agent_result !== null &&
      (record.evidence_status === 'EVIDENCE_FOUND' || record.evidence_status === 'NO_EVIDENCE');
    return ready ? (record as ReadyInvocation) : null;
  }

  private async write(record: CanonicalInvocation, mode: WriteMode): Promise<StoreOutcome> {
    const json = JSON.stringify(record);
    if (Buffer.byteLength(json, 'utf8') > this.limits.maxRecordBytes) return 'RECORD_TOO_LARGE';
    const reply = await this.command(`${mode} record`, record.run_id, () =>
      this.redis.eval(
        WRITE_RECORD,
        2,
        this.key(record.run_id, record.tool_call_id),
        this.runBytesKey(record.run_id),
        json,
        mode,
        String(this.limits.ttlSeconds),
        String(this.limits.maxRunBytes),
      ),
    );
    return (reply as [StoreOutcome, number])[0];
  }

  /** One idempotent command, tried again on a transient failure, at most `storeRetries` times. */
  private async command<T>(operation: string, runId: string, send: () => Promise<T>): Promise<T> {
    const retries = this.limits.storeRetries;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await send();
      } catch (error) {
        const failure = transientStoreFailure(error);
        if (failure === null || attempt >= retries) {
          this.logger.warn(
            `evidence store ${operation} failed (${failure ?? 'NOT_RETRYABLE'}) after ${attempt + 1} attempt(s): EVIDENCE_STORE_UNAVAILABLE (run ${runId})`,
          );
          throw new EvidenceStoreUnavailable();
        }
        this.logger.warn(
          `evidence store ${operation} ${failure}: EVIDENCE_STORE_RETRY ${attempt + 1} of ${retries} (run ${runId})`,
        );
        await sleep(this.limits.storeRetryDelayMs * (attempt + 1));
      }
    }
  }
}
