import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RunningApp, startApp } from '../support/app-under-test';
import { postChat, SseEvent } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_MYSQL } from '../support/test-env';

const names = (events: SseEvent[]) => events.map((event) => event.event);

/** Resolves with the stream's events as soon as `condition` holds for them, while the stream goes on. */
function watch(condition: (events: SseEvent[]) => boolean) {
  let seen!: (events: SseEvent[]) => void;
  const reached = new Promise<SseEvent[]>((resolve) => (seen = resolve));
  return {
    reached,
    stopWhen: (events: SseEvent[]) => {
      if (condition(events)) seen(events);
      return false;
    },
  };
}

async function runRows(runId: string): Promise<RowDataPacket[]> {
  const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
  try {
    const [rows] = await connection.query<RowDataPacket[]>(
      'SELECT status FROM diagnosis_run WHERE run_id = ?',
      [runId],
    );
    return rows;
  } finally {
    await connection.end();
  }
}

describe('POST /api/chat: the first event comes before any slow work', () => {
  const stub = new StubLlmServer();
  const mysql = new TcpProxy(TEST_MYSQL.port, TEST_MYSQL.host);
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({
      LLM_BASE_URL: await stub.start(),
      DB_PORT: String(await mysql.start()),
      DB_WRITE_GRACE_MS: '3000',
    });
  });
  beforeEach(() => {
    stub.requests.length = 0;
  });
  afterEach(() => mysql.thaw());
  afterAll(async () => {
    await app?.close();
    await mysql.cut();
    await stub.stop();
  });

  it('sends metadata while MySQL hangs, before the run row exists; the run goes on once MySQL answers', async () => {
    stub.load({
      roles: { 'intent-router': [{ content: 'SYSTEM_CHAT' }], 'system-chat': [{ content: 'hi' }] },
    });
    mysql.freeze();
    const first = watch((events) => events.length > 0);
    const pending = postChat(app.baseUrl, { query: 'hello' }, { stopWhen: first.stopWhen });
    const [metadata] = await first.reached;
    expect(metadata.event).toBe('metadata');
    const runId = String(metadata.data.run_id);
    // The run's row is held in the frozen connection: not written yet, and no model call made.
    expect(await runRows(runId)).toEqual([]);
    expect(stub.requests).toHaveLength(0);
    mysql.thaw();
    const response = await pending;
    expect(names(response.events)).toEqual(['metadata', 'status', 'status', 'content', 'done']);
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
    expect(await runRows(runId)).toEqual([expect.objectContaining({ status: 'SUCCESS' })]);
  });

  it('a start MySQL does not record within DB_WRITE_GRACE_MS ends the stream with RUN_NOT_RECORDED', async () => {
    stub.load({ roles: {} });
    mysql.freeze();
    const response = await postChat(app.baseUrl, { query: 'hello' });
    expect(response.status).toBe(200);
    expect(names(response.events)).toEqual(['metadata', 'failure', 'done']);
    expect(response.events[1].data).toMatchObject({ code: 'RUN_NOT_RECORDED' });
    expect(response.events[2].data).toEqual({ outcome: 'FAILED' });
    expect(response.text).not.toMatch(/PROTOCOL_SEQUENCE_TIMEOUT|admission rows|at .*\.js/);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('POST /api/chat while every slot is busy', () => {
  const stub = new StubLlmServer();
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({
      LLM_BASE_URL: await stub.start(),
      CHAT_MAX_IN_FLIGHT: '1',
      CHAT_MAX_QUEUE: '2',
      CHAT_MAX_QUEUED_PER_KEY: '2',
      CHAT_QUEUE_STATUS_MS: '100',
    });
  });
  afterAll(async () => {
    await app?.close();
    await stub.stop();
  });

  it('tells queued clients their place at once and as it changes, then streams each run normally', async () => {
    stub.load({
      roles: {
        'intent-router': [
          { content: 'SYSTEM_CHAT', delay_ms: 1500 },
          // Long enough for the third to see its place change (checked every 100 ms) before it runs.
          { content: 'SYSTEM_CHAT', delay_ms: 1500 },
          { content: 'SYSTEM_CHAT' },
        ],
        'system-chat': [{ content: 'one' }, { content: 'two' }, { content: 'three' }],
      },
    });
    const running = watch((events) => events.length > 0);
    const first = postChat(app.baseUrl, { query: 'first' }, { stopWhen: running.stopWhen });
    expect(names(await running.reached)).toEqual(['metadata']);
    const secondQueued = watch((events) => events.length > 0);
    const second = postChat(app.baseUrl, { query: 'second' }, { stopWhen: secondQueued.stopWhen });
    expect((await secondQueued.reached)[0]).toEqual({ event: 'queued', data: { ahead: 0 } });
    const third = postChat(app.baseUrl, { query: 'third' });

    const responses = await Promise.all([first, second, third]);
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
    }
    expect(names(responses[0].events)).toEqual(['metadata', 'status', 'status', 'content', 'done']);
    expect(names(responses[1].events)).toEqual(['queued', 'metadata', 'status', 'status', 'content', 'done']);
    // The third waited behind the second, then moved up when the second got the slot.
    expect(responses[2].events.filter((event) => event.event === 'queued')).toEqual([
      { event: 'queued', data: { ahead: 1 } },
      { event: 'queued', data: { ahead: 0 } },
    ]);
    expect(names(responses[2].events).slice(2)).toEqual(['metadata', 'status', 'status', 'content', 'done']);
  });
});
