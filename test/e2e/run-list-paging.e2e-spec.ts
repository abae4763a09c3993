import { useStubbedApp } from '../support/app-under-test';
import { postChat } from '../support/sse-client';
import { keyFetch, TEST_KEYS } from '../support/test-env';

const suite = useStubbedApp();

interface RunPage {
  runs: { run_id: string; query: string }[];
  limit: number;
  next_cursor: string | null;
}

async function page(sessionId: string, query: string): Promise<{ status: number; body: RunPage }> {
  const response = await keyFetch(
    TEST_KEYS.auditor,
    `${suite.app.baseUrl}/api/diagnosis/${sessionId}/trace?${query}`,
  );
  return { status: response.status, body: (await response.json()) as RunPage };
}

async function chat(query: string, sessionId?: string): Promise<{ sessionId: string; runId: string }> {
  suite.stub.load({
    roles: { 'intent-router': [{ content: 'SYSTEM_CHAT' }], 'system-chat': [{ content: 'ok' }] },
  });
  const response = await postChat(
    suite.app.baseUrl,
    sessionId ? { query, session_id: sessionId } : { query },
  );
  expect(response.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
  return {
    sessionId: String(response.events[0].data.session_id),
    runId: String(response.events[0].data.run_id),
  };
}

describe('a session’s run list, paged by keyset cursor', () => {
  it('walks every run once, newest first, even while new runs are added; refuses cursors it did not issue', async () => {
    const { sessionId } = await chat('run 1');
    for (const query of ['run 2', 'run 3', 'run 4']) await chat(query, sessionId);

    const first = await page(sessionId, 'limit=2');
    expect(first.status).toBe(200);
    expect(first.body.runs.map((run) => run.query)).toEqual(['run 4', 'run 3']);
    expect(first.body.limit).toBe(2);
    expect(first.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);

    // A run added between pages does not shift the next page (an offset would repeat 'run 3').
    await chat('run 5', sessionId);
    const second = await page(sessionId, `limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.runs.map((run) => run.query)).toEqual(['run 2', 'run 1']);
    expect(second.body.next_cursor).toBeNull();

    const all = await page(sessionId, 'limit=100');
    expect(all.body.runs.map((run) => run.query)).toEqual(['run 5', 'run 4', 'run 3', 'run 2', 'run 1']);
    expect(all.body.next_cursor).toBeNull();

    // Anything this endpoint did not issue is refused, never read as a position.
    for (const bad of [
      'nope',
      'a+b',
      Buffer.from('[1,"x\' OR 1=1"]').toString('base64url'),
      'a'.repeat(201),
    ]) {
      const refused = await keyFetch(
        TEST_KEYS.auditor,
        `${suite.app.baseUrl}/api/diagnosis/${sessionId}/trace?cursor=${encodeURIComponent(bad)}`,
      );
      expect(refused.status).toBe(400);
      expect(JSON.stringify(await refused.json())).toMatch(/cursor/);
    }
    const offset = await keyFetch(
      TEST_KEYS.auditor,
      `${suite.app.baseUrl}/api/diagnosis/${sessionId}/trace?offset=2`,
    );
    expect(offset.status).toBe(400);
  });
});
