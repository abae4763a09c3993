import { request } from 'node:http';
import { RunningApp, startApp } from './support/app-under-test';
import { TEST_KEYS } from './support/test-env';

/** GET from a given loopback source address: the throttler tracks clients by address. */
function getFrom(sourceAddress: string, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { localAddress: sourceAddress, headers: { 'x-api-key': TEST_KEYS.chat } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A loopback address of its own, so counters of other test files (all from 127.0.0.1) are not shared. */
function loopbackClient(): string {
  const byte = () => 1 + Math.floor(Math.random() * 250);
  return `127.${byte()}.${byte()}.${byte()}`;
}

describe('rate limit shared by replicas (throttler storage in Redis)', () => {
  const env = {
    THROTTLE_LIMIT: '4',
    THROTTLE_TTL_MS: '60000',
    REDIS_THROTTLE_KEY_PREFIX: `e2e:throttle:shared-${Date.now().toString(36)}`,
  };
  let first: RunningApp;
  let second: RunningApp;

  beforeAll(async () => {
    first = await startApp(env);
    second = await startApp(env);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('two instances on one Redis enforce one combined limit per client', async () => {
    const client = loopbackClient();
    const path = '/api/documents/status/INDEXED';
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push(await getFrom(client, `${(i % 2 === 0 ? first : second).baseUrl}${path}`));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    // The limit is per client: another address still gets through on either instance.
    expect(await getFrom(loopbackClient(), `${second.baseUrl}${path}`)).toBe(200);
  });
});
