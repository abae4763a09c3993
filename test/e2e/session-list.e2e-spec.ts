import { createHash } from 'node:crypto';
import { Connection, createConnection, RowDataPacket } from 'mysql2/promise';
import { RetentionService } from '@app/trace';
import { RunningApp, startApp } from '../support/app-under-test';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_KEYS, TEST_MYSQL } from '../support/test-env';

/** Chats in this file: its sessions' list rows are written by real runs. */
const OWNER = TEST_KEYS.sessionOwner;
/** Owns only the sessions this file inserts, so its list is exactly them. */
const LISTER = TEST_KEYS.traceReader;
const digest = (key: string) => createHash('sha256').update(key).digest('hex');

interface ListedSession {
  session_id: string;
  updated_at: string;
  run_count: number;
  last_outcome: string | null;
  last_query: string | null;
  last_run_at: string | null;
}
interface SessionPage {
  sessions: ListedSession[];
  limit: number;
  next_cursor: string | null;
}

describe('session list (GET /api/diagnosis/sessions)', () => {
  const stub = new StubLlmServer();
  let app: RunningApp;
  let db: Connection;

  const list = async (key: string, query: string) => {
    const response = await fetch(`${app.baseUrl}/api/diagnosis/sessions?${query}`, {
      headers: { 'x-api-key': key },
    });
    return { status: response.status, body: (await response.json()) as SessionPage & { message?: unknown } };
  };
  const rowOf = async (key: string, sessionId: string) =>
    (await list(key, 'limit=100')).body.sessions.find((session) => session.session_id === sessionId);

  beforeAll(async () => {
    app = await startApp({ LLM_BASE_URL: await stub.start() });
    db = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME, timezone: 'Z' });
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
    await stub.stop();
  });

  it('walks every session exactly once, last activity first, through ties of updated_at', async () => {
    // 23 sessions on 4 instants: ties of 8, 7, 5 and 3 rows, so page borders fall inside ties.
    const instants = [
      '2026-11-01 10:00:00.500',
      '2026-11-01 10:00:00.000',
      '2026-10-31 09:00:00.250',
      '2026-01-01 00:00:00.000',
    ];
    const sizes = [8, 7, 5, 3];
    const inserted = instants.flatMap((at, group) =>
      Array.from({ length: sizes[group] }, (_, index) => ({
        id: `list-tie-${String.fromCharCode(97 + ((index * 7 + group) % 26))}${index}-${group}`,
        at,
      })),
    );
    await db.query(
      `INSERT INTO chat_session (session_id, owner_key_digest, created_at, updated_at) VALUES ${inserted
        .map(() => '(?, ?, ?, ?)')
        .join(', ')}`,
      inserted.flatMap(({ id, at }) => [id, digest(LISTER), at, at]),
    );
    const expected = [...inserted]
      .sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1))
      .map(({ id }) => id);

    const walked: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: SessionPage } = await list(
        LISTER,
        `limit=5${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      walked.push(...page.body.sessions.map((session) => session.session_id));
      pageSizes.push(page.body.sessions.length);
      cursor = page.body.next_cursor;
    } while (cursor !== null && pageSizes.length < 10);

    expect(walked).toEqual(expected);
    expect(new Set(walked).size).toBe(23);
    expect(pageSizes).toEqual([5, 5, 5, 5, 3]);
  });

  it('shows a run in the list row once its terminal write is stored: outcome, run count, preview', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'SYSTEM_CHAT' }, { error: 400 }],
        'system-chat': [{ content: 'hello' }],
      },
    });
    const first = await postChat(app.baseUrl, { query: 'first question' }, { apiKey: OWNER });
    const sessionId = String(first.events[0].data.session_id);
    const afterFirst = await rowOf(OWNER, sessionId);
    expect(afterFirst).toMatchObject({ run_count: 1, last_outcome: 'SUCCESS', last_query: 'first question' });

    const second = await postChat(
      app.baseUrl,
      { session_id: sessionId, query: 'second question' },
      { apiKey: OWNER },
    );
    expect(second.status).toBe(200);
    const [[run]] = await db.query<RowDataPacket[]>('SELECT status FROM diagnosis_run WHERE run_id = ?', [
      String(second.events[0].data.run_id),
    ]);
    expect(run.status).not.toBe('SUCCESS');
    const afterSecond = await rowOf(OWNER, sessionId);
    expect(afterSecond).toMatchObject({
      run_count: 2,
      last_outcome: run.status,
      last_query: 'second question',
    });
    expect(Date.parse(afterSecond!.updated_at)).toBeGreaterThan(Date.parse(afterFirst!.updated_at));
    // Last activity first: the session just written heads the list.
    expect((await list(OWNER, 'limit=1')).body.sessions[0].session_id).toBe(sessionId);
  });

  it('updates the list row when the lease reaper closes a run', async () => {
    stub.load({
      roles: { 'intent-router': [{ content: 'SYSTEM_CHAT' }], 'system-chat': [{ content: 'hi' }] },
    });
    const chat = await postChat(app.baseUrl, { query: 'before the crash' }, { apiKey: OWNER });
    const sessionId = String(chat.events[0].data.session_id);
    await db.query(
      `INSERT INTO diagnosis_run (run_id, session_id, query, status, owner_id, lease_expires_at, created_at)
       VALUES ('list-crashed-run', ?, 'asked of a crashed replica', 'RUNNING', 'gone-replica',
         NOW(3) - INTERVAL 1 MINUTE, NOW(3) + INTERVAL 1 SECOND)`,
      [sessionId],
    );
    await app.app.get(RetentionService).closeExpiredLeases();
    expect(await rowOf(OWNER, sessionId)).toMatchObject({
      run_count: 2,
      last_outcome: 'FAILED',
      last_query: 'asked of a crashed replica',
    });
  });

  it.each([
    ['garbage', 'cursor=not-a-cursor'],
    ['a forged position', `cursor=${Buffer.from('[1,"x\' OR 1=1"]').toString('base64url')}`],
    ['an empty cursor', 'cursor='],
    ['an offset', 'offset=20'],
  ])('refuses %s with 400 and a message', async (_name, query) => {
    const response = await list(LISTER, query);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body.message)).toMatch(/cursor|offset/);
  });
});
