import Redis, { Cluster } from 'ioredis';
import { RedisThrottlerStorage } from '@app/harness';
import { LocalRedisCluster } from '../support/redis-cluster';
import { TEST_REDIS } from '../support/test-env';
import { scaled } from '../support/test-timeouts';

// Starting the three-node cluster takes a few seconds on an idle machine.
jest.setTimeout(scaled(60_000));

const TTL_MS = 60_000;

/** A storage as a replica has it: its own Redis connection, a prefix of this test's own. */
function storageOn(redis: Redis | Cluster, prefix: string): RedisThrottlerStorage {
  const config = { throttleKeyPrefix: prefix } as ConstructorParameters<typeof RedisThrottlerStorage>[1];
  return new RedisThrottlerStorage(redis, config);
}

describe('rate limit storage on a real Redis: hits sent together answer as if sent one by one', () => {
  const prefix = `medium:throttle:${Date.now().toString(36)}`;
  const connections: Redis[] = [];
  let redis: Redis;

  const connect = () => {
    const client = new Redis(TEST_REDIS);
    connections.push(client);
    return client;
  };

  beforeAll(() => {
    redis = connect();
  });
  afterAll(() => connections.forEach((client) => client.disconnect()));

  it('counts a burst of one client in one call: the first `limit` pass in order, the rest are blocked', async () => {
    const storage = storageOn(redis, prefix);
    const records = await Promise.all(
      Array.from({ length: 12 }, () => storage.increment('burst-client', TTL_MS, 5, 0, 'default')),
    );
    expect(records.map((record) => record.isBlocked)).toEqual([
      ...Array(5).fill(false),
      ...Array(7).fill(true),
    ]);
    expect(records.slice(0, 5).map((record) => record.totalHits)).toEqual([1, 2, 3, 4, 5]);
    // The hit that passed the limit is counted and sets the block; blocked hits after it are not counted.
    expect(records.slice(5).every((record) => record.totalHits === 6)).toBe(true);
    expect(await redis.get(`${prefix}:{default:burst-client}:hits`)).toBe('6');
    expect(records[5].timeToBlockExpire).toBe(TTL_MS / 1000);
    expect(records[0].timeToExpire).toBeLessThanOrEqual(TTL_MS / 1000);
    expect(records[0].timeToExpire).toBeGreaterThan(0);
    const blockTtl = await redis.pttl(`${prefix}:{default:burst-client}:blocked`);
    expect(blockTtl).toBeGreaterThan(0);
    expect(blockTtl).toBeLessThanOrEqual(TTL_MS);
  });

  it('continues a client window across batches and stays blocked once blocked', async () => {
    const storage = storageOn(redis, prefix);
    const hit = () => storage.increment('batched-client', TTL_MS, 5, 0, 'default');
    const first = await Promise.all([hit(), hit(), hit()]);
    const second = await Promise.all([hit(), hit(), hit(), hit()]);
    const third = await Promise.all([hit(), hit()]);
    expect(first.map((record) => [record.totalHits, record.isBlocked])).toEqual([
      [1, false],
      [2, false],
      [3, false],
    ]);
    expect(second.map((record) => [record.totalHits, record.isBlocked])).toEqual([
      [4, false],
      [5, false],
      [6, true],
      [6, true],
    ]);
    expect(third.map((record) => [record.totalHits, record.isBlocked])).toEqual([
      [6, true],
      [6, true],
    ]);
  });

  it('keeps each client and each throttler apart within one pipeline', async () => {
    const storage = storageOn(redis, prefix);
    const calls = [
      ...Array.from({ length: 3 }, () => storage.increment('client-a', TTL_MS, 2, 0, 'default')),
      ...Array.from({ length: 2 }, () => storage.increment('client-b', TTL_MS, 2, 0, 'default')),
      ...Array.from({ length: 3 }, () => storage.increment('client-a', TTL_MS, 10, 0, 'long')),
    ];
    const records = await Promise.all(calls);
    expect(records.map((record) => [record.totalHits, record.isBlocked])).toEqual([
      [1, false],
      [2, false],
      [3, true],
      [1, false],
      [2, false],
      [1, false],
      [2, false],
      [3, false],
    ]);
  });

  it('two replicas hitting one client at once let exactly `limit` requests through together', async () => {
    const replicas = [
      storageOn(connect(), prefix),
      storageOn(connect(), prefix),
      storageOn(connect(), prefix),
    ];
    const records = await Promise.all(
      Array.from({ length: 90 }, (_, i) =>
        replicas[i % replicas.length].increment('shared-client', TTL_MS, 40, 0, 'default'),
      ),
    );
    const passed = records.filter((record) => !record.isBlocked);
    expect(passed).toHaveLength(40);
    // Every passing hit saw its own count: no two replicas handed out the same place.
    expect(new Set(passed.map((record) => record.totalHits)).size).toBe(40);
    expect(Math.max(...passed.map((record) => record.totalHits))).toBe(40);
  });

  it('uses the block duration when one is set', async () => {
    const storage = storageOn(redis, prefix);
    const records = await Promise.all(
      Array.from({ length: 2 }, () => storage.increment('blocking-client', TTL_MS, 1, 5_000, 'default')),
    );
    expect(records[1]).toMatchObject({ isBlocked: true, timeToBlockExpire: 5 });
    const blockTtl = await redis.pttl(`${prefix}:{default:blocking-client}:blocked`);
    expect(blockTtl).toBeGreaterThan(0);
    expect(blockTtl).toBeLessThanOrEqual(5_000);
  });

  it('lets every hit of a batch through, uncounted, when Redis cannot answer', async () => {
    const unreachable = new Redis({
      host: '127.0.0.1',
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    connections.push(unreachable);
    const storage = storageOn(unreachable, prefix);
    const records = await Promise.all([
      storage.increment('offline-client', TTL_MS, 1, 0, 'default'),
      storage.increment('offline-client', TTL_MS, 1, 0, 'default'),
      storage.increment('other-offline-client', TTL_MS, 1, 0, 'default'),
    ]);
    expect(records).toEqual(
      Array(3).fill({ totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 }),
    );
  });
});

describe('rate limit storage on a Redis Cluster', () => {
  const cluster = new LocalRedisCluster();
  let client: Cluster;

  beforeAll(async () => {
    await cluster.start();
    client = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster.stop();
  });

  it('counts clients on different slots in the same turn, each against its own limit', async () => {
    const storage = storageOn(client, 'medium:throttle:cluster');
    const clients = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'];
    const records = await Promise.all(
      clients.flatMap((tracker) =>
        Array.from({ length: 3 }, () => storage.increment(tracker, TTL_MS, 2, 0, 'default')),
      ),
    );
    expect(records.map((record) => record.isBlocked)).toEqual(clients.flatMap(() => [false, false, true]));
    expect(records.map((record) => record.totalHits)).toEqual(clients.flatMap(() => [1, 2, 3]));
  });
});
