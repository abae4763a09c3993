import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_REDIS } from '../support/test-env';

describe('Redis outage and recovery', () => {
  const stub = new StubLlmServer();
  const redis = new TcpProxy(TEST_REDIS.port, TEST_REDIS.host);
  let app: RunningApp;

  const script = () =>
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'evidence-repair': [{ content: draftJson() }],
        'semantic-guard': [SUPPORTED],
      },
    });

  beforeAll(async () => {
    app = await startApp({
      LLM_BASE_URL: await stub.start(),
      REDIS_PORT: String(await redis.start()),
      REDIS_CONNECT_TIMEOUT_MS: '300',
    });
  });
  afterAll(async () => {
    await app?.close();
    await redis.cut();
    await stub.stop();
  });

  it('never releases a report it could not verify while Redis is down, then recovers without a restart', async () => {
    await redis.cut();
    script();
    const down = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(down.events.at(-2)?.data).toMatchObject({
      content_type: 'FALLBACK',
      payload: { type: 'EVIDENCE_VALIDATION_FAILED' },
    });
    expect(down.events.at(-1)?.data).toEqual({ outcome: 'FALLBACK' });
    expect(down.text).not.toContain('DRAFT-MARKER');
    expect((await fetch(`${app.baseUrl}/health`)).status).toBe(503);

    await redis.restore();
    let healthy = false;
    for (let i = 0; i < 50 && !healthy; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      healthy = (await fetch(`${app.baseUrl}/health`)).status === 200;
    }
    expect(healthy).toBe(true);
    script();
    const up = await postChat(app.baseUrl, { query: 'order-123 payment times out' });
    expect(up.events.at(-2)?.data).toMatchObject({ content_type: 'DIAGNOSIS_REPORT' });
    expect(up.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
  });

  it('never releases a report when Redis goes away mid-run, after the evidence was stored', async () => {
    const [plan, final] = agentTurns(draftJson());
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [plan, { ...final, delay_ms: 800 }],
        'evidence-repair': [{ content: draftJson() }],
        'semantic-guard': [SUPPORTED],
      },
    });
    const pending = postChat(app.baseUrl, { query: 'order-123 payment times out' });
    for (let i = 0; i < 100 && stub.requestsFor('diagnosis-agent').length < 2; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await redis.cut();
    const response = await pending;
    expect(response.events.at(-2)?.data).toMatchObject({
      content_type: 'FALLBACK',
      payload: { type: 'EVIDENCE_VALIDATION_FAILED' },
    });
    expect(response.text).not.toContain('DRAFT-MARKER');
    await redis.restore();
    for (let i = 0; i < 50 && (await fetch(`${app.baseUrl}/health`)).status !== 200; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
