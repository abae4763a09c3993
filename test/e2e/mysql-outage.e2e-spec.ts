import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_MYSQL } from '../support/test-env';
import { scaled } from '../support/test-timeouts';

describe('service database lost mid-run', () => {
  const stub = new StubLlmServer();
  const mysql = new TcpProxy(TEST_MYSQL.port, TEST_MYSQL.host);
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({
      LLM_BASE_URL: await stub.start(),
      DB_PORT: String(await mysql.start()),
      // Short, so connections after the cut fail fast; scaled, so the start-up's own connects do not time out under load.
      DB_CONNECT_TIMEOUT_MS: String(scaled(1000)),
      RUN_HEARTBEAT_MS: '300',
      RUN_LEASE_MS: '1500',
    });
  });
  afterAll(async () => {
    await app?.close();
    await mysql.cut();
    await stub.stop();
  });

  it('ends the stream cleanly with a failure, and once MySQL is back the run row holds what the client heard, with RUN_FINISHED', async () => {
    const [plan, final] = agentTurns(draftJson());
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [{ ...plan, delay_ms: 1500 }, final],
        'semantic-guard': [SUPPORTED],
      },
    });
    const pending = postChat(app.baseUrl, { query: 'order-123 payment times out' });
    for (let i = 0; i < 50 && stub.requestsFor('diagnosis-agent').length === 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await mysql.cut();
    const response = await pending;
    expect(response.events.map((event) => event.event).slice(-2)).toEqual(['failure', 'done']);
    expect(response.events.at(-2)?.data).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'FAILED' });
    expect(response.text).not.toMatch(/ECONNREFUSED|QueryFailed|at .*\.js/);

    await mysql.restore();
    const runId = String(response.events[0].data.run_id);
    const admin = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      // The replica remembers the ending it announced and stores it at its next heartbeat once MySQL
      // answers: the same code the client heard, not ABANDONED.
      let row: RowDataPacket | undefined;
      for (let i = 0; i < 100; i += 1) {
        [[row]] = await admin.query<RowDataPacket[]>(
          'SELECT status, error_code, ended_at FROM diagnosis_run WHERE run_id = ?',
          [runId],
        );
        if (row?.status !== 'RUNNING') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(row).toMatchObject({ status: 'FAILED', error_code: 'INTERNAL_ERROR' });
      expect(row?.ended_at).not.toBeNull();
      const [finished] = await admin.query<RowDataPacket[]>(
        "SELECT details FROM diagnosis_trace_event WHERE run_id = ? AND event_type = 'RUN_FINISHED'",
        [runId],
      );
      expect(finished).toHaveLength(1);
    } finally {
      await admin.end();
    }
  });
});
