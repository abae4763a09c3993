import { Inject, Injectable } from '@nestjs/common';
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
 * Writes one record and keeps the per-run byte counter, atomically. A create never overwrites
 * (duplicate ids are refused) and sets the TTL; an update keeps the TTL it had (KEEPTTL), so nothing
 * is ever renewed. The counter gets the same TTL once, at its creation.
 */
const WRITE_RECORD = `
local size = string.len(ARGV[1])
local previous = 0
if ARGV[2] == 'create' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return {'DUPLICATE', 0} end
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

/** The canonical invocation store (docs/architecture.md "Redis canonical record"). Only the Harness uses it. */
@Injectable()
export class InvocationStore {
  private readonly limits: HarnessConfig['evidence'];

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
    try {
      await this.redis.set(this.runMarkerKey(runId), '1', 'EX', this.limits.ttlSeconds);
    } catch {
      throw new EvidenceStoreUnavailable();
    }
  }

  /** Whether the store still holds what it held for this run: false once its marker is gone. */
  async runIntact(runId: string): Promise<boolean> {
    try {
      return (await this.redis.exists(this.runMarkerKey(runId))) === 1;
    } catch {
      throw new EvidenceStoreUnavailable();
    }
  }

  create(record: CanonicalInvocation): Promise<StoreOutcome> {
    return this.write(record, 'create');
  }

  update(record: CanonicalInvocation): Promise<StoreOutcome> {
    return this.write(record, 'update');
  }

  async get(runId: string, toolCallId: string): Promise<CanonicalInvocation | null> {
    let text: string | null;
    try {
      text = await this.redis.get(this.key(runId, toolCallId));
    } catch {
      throw new EvidenceStoreUnavailable();
    }
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
    let reply: unknown;
    try {
      reply = await this.redis.eval(
        WRITE_RECORD,
        2,
        this.key(record.run_id, record.tool_call_id),
        this.runBytesKey(record.run_id),
        json,
        mode,
        String(this.limits.ttlSeconds),
        String(this.limits.maxRunBytes),
      );
    } catch {
      throw new EvidenceStoreUnavailable();
    }
    return (reply as [StoreOutcome, number])[0];
  }
}
