import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_REDIS } from '../support/test-env';

/** The minimal ACL of docs/configuration.md ("Redis ACL"), verbatim apart from the user name and password. */
const MINIMAL_ACL = [
  'resetkeys',
  '~superbiz:harness:*',
  'resetchannels',
  '-@all',
  '+ping',
  '+get',
  '+eval',
  '+exists',
  '+strlen',
  '+set',
  '+incrby',
  '+decrby',
  '+ttl',
  '+expire',
];

describe('Redis with a restricted ACL user (REDIS_USERNAME)', () => {
  const stub = new StubLlmServer();
  const admin = new Redis({ host: TEST_REDIS.host, port: TEST_REDIS.port, lazyConnect: true });
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const users = {
    minimal: `e2e-harness-${suffix}`,
    noKeys: `e2e-nokeys-${suffix}`,
    nothing: `e2e-nothing-${suffix}`,
  };
  const password = randomBytes(16).toString('hex');
  const apps: RunningApp[] = [];

  const boot = async (username: string) => {
    const app = await startApp({
      LLM_BASE_URL: stub.baseUrl,
      REDIS_USERNAME: username,
      REDIS_PASSWORD: password,
      REDIS_CONNECT_TIMEOUT_MS: '500',
    });
    apps.push(app);
    return app;
  };
  const diagnose = (app: RunningApp) => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'evidence-repair': [{ content: draftJson() }],
        'semantic-guard': [SUPPORTED],
      },
    });
    return postChat(app.baseUrl, { query: 'order-123 payment times out' });
  };

  beforeAll(async () => {
    await stub.start();
    await admin.connect();
    await admin.call('ACL', 'SETUSER', users.minimal, 'reset', 'on', `>${password}`, ...MINIMAL_ACL);
    // Every command, but none of the Harness keys.
    await admin.call(
      'ACL',
      'SETUSER',
      users.noKeys,
      'reset',
      'on',
      `>${password}`,
      ...MINIMAL_ACL.map((rule) => (rule === '~superbiz:harness:*' ? '~someone-else:*' : rule)),
    );
    await admin.call('ACL', 'SETUSER', users.nothing, 'reset', 'on', `>${password}`, '-@all');
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await admin.call('ACL', 'DELUSER', users.minimal, users.noKeys, users.nothing);
    await admin.quit();
    await stub.stop();
  });

  it('works with only the documented minimal ACL: healthy, evidence stored and released', async () => {
    const app = await boot(users.minimal);
    expect((await fetch(`${app.baseUrl}/health`)).status).toBe(200);
    const response = await diagnose(app);
    expect(response.events.at(-2)?.data).toMatchObject({ content_type: 'DIAGNOSIS_REPORT' });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
    const runId = String(response.events[0].data.run_id);
    expect(await admin.keys(`superbiz:harness:*${runId}*`)).not.toHaveLength(0);
  });

  it('fails closed for a user without rights on the Harness keys: no evidence, no released report', async () => {
    const app = await boot(users.noKeys);
    const response = await diagnose(app);
    expect(response.events.at(-2)?.data).toMatchObject({
      content_type: 'FALLBACK',
      payload: { type: 'EVIDENCE_VALIDATION_FAILED' },
    });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'FALLBACK' });
    expect(response.text).not.toContain('DRAFT-MARKER');
  });

  it('reports itself down for a user that may not even PING', async () => {
    const app = await boot(users.nothing);
    const health = await fetch(`${app.baseUrl}/health`);
    expect(health.status).toBe(503);
    expect(JSON.stringify(await health.json())).not.toContain(password);
  });
});
