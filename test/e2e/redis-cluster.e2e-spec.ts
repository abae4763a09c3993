import Redis, { Cluster } from 'ioredis';
import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { LocalRedisCluster } from '../support/redis-cluster';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { scaled } from '../support/test-timeouts';

// The longest test or hook here needs up to 60 s on an idle machine; the suite's
// time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(60_000));

describe('Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  const cluster = new LocalRedisCluster();
  const stub = new StubLlmServer();
  let app: RunningApp;
  let client: Cluster;

  beforeAll(async () => {
    const nodes = await cluster.start();
    // REDIS_PORT points at nothing: every command must go through the cluster client.
    app = await startApp({ LLM_BASE_URL: await stub.start(), REDIS_CLUSTER_NODES: nodes, REDIS_PORT: '1' });
    client = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
  });
  afterAll(async () => {
    await app?.close();
    client?.disconnect();
    await stub.stop();
    await cluster.stop();
  });

  it('stores tool calls as evidence on the cluster, a run on one slot, and releases the report', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(response.events.at(-2)?.data).toMatchObject({ content_type: 'DIAGNOSIS_REPORT' });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
    const runId = response.events[0].data.run_id as string;

    const record = `superbiz:harness:tool-call:{${runId}}:call_logs_1`;
    const bytes = `superbiz:harness:tool-call:{${runId}}#bytes`;
    const stored = JSON.parse((await client.get(record)) ?? 'null') as Record<string, unknown> | null;
    expect(stored).toMatchObject({ run_id: runId, tool_call_id: 'call_logs_1', status: 'READY' });
    expect(Number(await client.get(bytes))).toBeGreaterThan(0);

    const slot = await client.cluster('KEYSLOT', record);
    expect(await client.cluster('KEYSLOT', bytes)).toBe(slot);
    // Both keys live on the one master that owns the slot, and only there.
    const holders: number[] = [];
    for (const port of cluster.ports) {
      const node = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
      await node.connect();
      const found = await node.exists(record, bytes).catch(() => 0);
      node.disconnect();
      if (found === 2) holders.push(port);
    }
    expect(holders).toHaveLength(1);
  });

  it('reports the cluster healthy in /health', async () => {
    expect((await fetch(`${app.baseUrl}/health`)).status).toBe(200);
  });
});
