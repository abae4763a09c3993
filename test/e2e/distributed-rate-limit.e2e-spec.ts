import { request } from 'node:http';
import { RunningApp, startApp } from '../support/app-under-test';
import { TEST_KEYS } from '../support/test-env';

/** GET from a given loopback source address: the throttler tracks clients by address. */
function getFrom(sourceAddress: string, url: string, forwardedFor?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'x-api-key': TEST_KEYS.chat };
    if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
    const req = request(url, { localAddress: sourceAddress, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
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

describe('rate limit behind a load balancer (TRUST_PROXY)', () => {
  const path = '/api/documents/status/INDEXED';
  const env = { THROTTLE_LIMIT: '2', THROTTLE_TTL_MS: '60000' };
  let direct: RunningApp;
  let proxied: RunningApp;

  beforeAll(async () => {
    direct = await startApp(env);
    proxied = await startApp({ ...env, TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
  });

  it('behind a trusted proxy, each forwarded client has its own limit', async () => {
    // All requests come from one proxy address; X-Forwarded-For names the client behind it.
    const proxy = loopbackClient();
    const statuses = [];
    for (const client of ['203.0.113.7', '203.0.113.7', '203.0.113.7', '198.51.100.9']) {
      statuses.push(await getFrom(proxy, `${proxied.baseUrl}${path}`, client));
    }
    expect(statuses).toEqual([200, 200, 429, 200]);
  });

  it('without TRUST_PROXY a forged X-Forwarded-For does not escape the limit', async () => {
    const client = loopbackClient();
    const statuses = [];
    for (const forged of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      statuses.push(await getFrom(client, `${direct.baseUrl}${path}`, forged));
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});
