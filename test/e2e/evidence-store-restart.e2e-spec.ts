import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { LocalRedis } from '../support/local-redis';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_MYSQL } from '../support/test-env';

async function rows(sql: string, params: unknown[]): Promise<RowDataPacket[]> {
  const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
  try {
    return (await connection.query<RowDataPacket[]>(sql, params))[0];
  } finally {
    await connection.end();
  }
}

const detailsOf = (row: RowDataPacket) =>
  (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as Record<string, unknown>;

/**
 * Issue 36: Redis restarts without persistence while a run is between its tool calls and its answer.
 * The store is reachable again but empty: that is a store outage with its own reason
 * (EVIDENCE_STORE_LOST), not a draft citing calls never made, and no repair call is spent on it.
 */
describe('evidence store restarted empty mid-run (a private real Redis)', () => {
  const stub = new StubLlmServer();
  const redis = new LocalRedis();
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({
      LLM_BASE_URL: await stub.start(),
      REDIS_HOST: '127.0.0.1',
      REDIS_PORT: String(await redis.start()),
    });
  });
  afterAll(async () => {
    await app?.close();
    await redis.stop();
    await stub.stop();
  });

  const script = (finalDelayMs: number) => {
    const [plan, final] = agentTurns(draftJson());
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [plan, { ...final, delay_ms: finalDelayMs }],
        'evidence-repair': [{ content: draftJson() }],
        'semantic-guard': [SUPPORTED],
      },
    });
  };

  it('the same run with the store intact is released (the fixture is sound)', async () => {
    script(0);
    const response = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
  });

  it('a Redis that came back empty is EVIDENCE_STORE_LOST, with no repair call', async () => {
    script(3000);
    // The stub keeps its request log across scripts: count this run's requests only.
    const agentBefore = stub.requestsFor('diagnosis-agent').length;
    const repairsBefore = stub.requestsFor('evidence-repair').length;
    const pending = postChat(app.baseUrl, { query: 'order-123 payment times out' });
    // The second agent request means the tool call is stored; its answer is held for 3 s.
    for (let i = 0; i < 200 && stub.requestsFor('diagnosis-agent').length < agentBefore + 2; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stub.requestsFor('diagnosis-agent')).toHaveLength(agentBefore + 2);
    await redis.restart();
    // The service reconnects on its own; the agent's answer is still held by the stub.
    let healthy = false;
    for (let i = 0; i < 50 && !healthy; i += 1) {
      healthy = (await fetch(`${app.baseUrl}/health`)).status === 200;
      if (!healthy) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(healthy).toBe(true);

    const response = await pending;
    expect(response.events.at(-2)?.data).toMatchObject({
      content_type: 'FALLBACK',
      payload: { type: 'EVIDENCE_VALIDATION_FAILED' },
    });
    expect(response.text).not.toContain('DRAFT-MARKER');
    expect(stub.requestsFor('evidence-repair')).toHaveLength(repairsBefore);
    const runId = String(response.events[0].data.run_id);
    const [run] = await rows('SELECT status, fallback_reason FROM diagnosis_run WHERE run_id = ?', [runId]);
    expect(run).toMatchObject({ status: 'FALLBACK', fallback_reason: 'EVIDENCE_STORE_LOST' });
    const events = await rows(
      'SELECT event_type, details FROM diagnosis_trace_event WHERE run_id = ? ORDER BY id',
      [runId],
    );
    expect(events.filter((row) => row.event_type === 'EVIDENCE_CHECKED').map(detailsOf)).toEqual([
      expect.objectContaining({ attempt: 1, ok: false, error_code: 'EVIDENCE_STORE_LOST' }),
    ]);
    expect(detailsOf(events.find((row) => row.event_type === 'FALLBACK')!)).toEqual({
      type: 'EVIDENCE_VALIDATION_FAILED',
      reason: 'EVIDENCE_STORE_LOST',
    });
  });
});
