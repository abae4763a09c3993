import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_MYSQL, TEST_REDIS } from '../support/test-env';

/** Waits for a condition (polling), so no fixed sleep decides an outcome. */
async function until(condition: () => boolean, what: string, deadlineMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > deadlineMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function runRow(runId: string): Promise<RowDataPacket | undefined> {
  const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
  try {
    const [[row]] = await connection.query<RowDataPacket[]>(
      'SELECT status, fallback_reason FROM diagnosis_run WHERE run_id = ?',
      [runId],
    );
    return row;
  } finally {
    await connection.end();
  }
}

describe('the evidence store (Redis) stalls mid-run', () => {
  const stub = new StubLlmServer();
  const redis = new TcpProxy(TEST_REDIS.port, TEST_REDIS.host);
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({
      LLM_BASE_URL: await stub.start(),
      REDIS_PORT: String(await redis.start()),
      REDIS_COMMAND_TIMEOUT_MS: '300',
      HARNESS_EVIDENCE_STORE_RETRIES: '2',
      HARNESS_EVIDENCE_STORE_RETRY_DELAY_MS: '100',
    });
  });
  afterEach(() => redis.thaw());
  afterAll(async () => {
    await app?.close();
    await redis.cut();
    await stub.stop();
  });

  /** A diagnosis whose tool call waits for the test: the plan reply comes after `delayMs`. */
  function startDiagnosis(delayMs: number) {
    const [plan, final] = agentTurns(draftJson());
    stub.requests.length = 0;
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [{ ...plan, delay_ms: delayMs }, final],
        'evidence-repair': [{ content: draftJson() }],
        'semantic-guard': [SUPPORTED],
      },
    });
    return postChat(app.baseUrl, { query: 'order-123 payment times out' });
  }

  it('a stall longer than a command timeout but within the retries does not fail the run', async () => {
    const pending = startDiagnosis(300);
    await until(() => stub.requestsFor('diagnosis-agent').length > 0, 'the agent’s first call');
    redis.freeze();
    // The store's first write timed out and it wrote again (the retry): the stall outlived a command.
    await until(() => redis.heldChunks >= 2, 'a retried store command');
    redis.thaw();
    const response = await pending;
    expect(response.events.at(-2)?.data).toMatchObject({ content_type: 'DIAGNOSIS_REPORT' });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
    expect(await runRow(String(response.events[0].data.run_id))).toMatchObject({
      status: 'SUCCESS',
      fallback_reason: null,
    });
  });

  it('a stall past the retries is the named store outage, never a report', async () => {
    const pending = startDiagnosis(300);
    await until(() => stub.requestsFor('diagnosis-agent').length > 0, 'the agent’s first call');
    redis.freeze();
    const response = await pending;
    redis.thaw();
    expect(response.events.at(-2)?.data).toMatchObject({ content_type: 'FALLBACK' });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'FALLBACK' });
    expect(response.text).not.toContain('DRAFT-MARKER');
    expect(await runRow(String(response.events[0].data.run_id))).toMatchObject({
      status: 'FALLBACK',
      fallback_reason: 'EVIDENCE_STORE_UNAVAILABLE',
    });
  });
});
