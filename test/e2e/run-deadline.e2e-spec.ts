import { createConnection, RowDataPacket } from 'mysql2/promise';
import { useStubbedApp } from '../support/app-under-test';
import { agentTurns, draftJson } from '../support/diagnosis-scripts';
import { postChat, SseEvent } from '../support/sse-client';
import { TEST_MYSQL } from '../support/test-env';
import { scaled } from '../support/test-timeouts';
import type { StubReply } from '../support/stub-llm/stub-script';

// The phases before the slow one must fit in the run's time before its guard reserve: on the suite's
// time scale, so a loaded machine does not move the deadline into an earlier phase.
const suite = useStubbedApp({
  HARNESS_RUN_TIMEOUT_MS: String(scaled(2000)),
  HARNESS_GUARD_TIME_RESERVE_MS: String(scaled(1000)),
  HARNESS_MODEL_CALL_TIMEOUT_MS: String(scaled(10_000)),
  HARNESS_SEMANTIC_CALL_TIMEOUT_MS: String(scaled(10_000)),
  HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS: String(scaled(20_000)),
});
const { stub } = suite;

async function runRow(runId: string): Promise<RowDataPacket> {
  const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
  try {
    for (let i = 0; i < 60; i += 1) {
      const [rows] = await connection.query<RowDataPacket[]>(
        'SELECT status, error_code FROM diagnosis_run WHERE run_id = ?',
        [runId],
      );
      if (rows[0] && rows[0].status !== 'RUNNING') return rows[0];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run ${runId} never left RUNNING`);
  } finally {
    await connection.end();
  }
}

const SLOW = scaled(6000);
const [plan, final] = agentTurns(draftJson());
const PHASES: [string, Record<string, StubReply[]>, string][] = [
  ['routing', { 'intent-router': [{ delay_ms: SLOW, content: 'DIAGNOSIS' }] }, 'intent-router'],
  [
    'the agent',
    { 'intent-router': [{ content: 'DIAGNOSIS' }], 'diagnosis-agent': [{ ...plan, delay_ms: SLOW }, final] },
    'diagnosis-agent',
  ],
  [
    'the semantic guard',
    {
      'intent-router': [{ content: 'DIAGNOSIS' }],
      'diagnosis-agent': [plan, final],
      'semantic-guard': [
        { delay_ms: SLOW, content: '{}' },
        { delay_ms: SLOW, content: '{}' },
      ],
    },
    'semantic-guard',
  ],
];

describe('run deadline and client disconnect in each phase', () => {
  it.each(PHASES.slice(0, 2))(
    'a deadline during %s ends with RUN_TIMEOUT and one terminal state',
    async (_phase, roles) => {
      stub.load({ roles });
      const started = Date.now();
      const response = await postChat(suite.app.baseUrl, { query: 'order-123 payment times out' });
      expect(Date.now() - started).toBeLessThan(SLOW);
      expect(response.events.map((event) => event.event).slice(-2)).toEqual(['failure', 'done']);
      expect(response.events.at(-2)?.data).toMatchObject({ code: 'RUN_TIMEOUT' });
      expect(response.text).not.toContain('DRAFT-MARKER');
      expect(await runRow(String(response.events[0].data.run_id))).toMatchObject({
        status: 'FAILED',
        error_code: 'RUN_TIMEOUT',
      });
    },
  );

  it('a deadline during the semantic guard ends in the fixed fallback, not a failure', async () => {
    stub.load({ roles: PHASES[2][1] });
    const started = Date.now();
    const response = await postChat(suite.app.baseUrl, { query: 'order-123 payment times out' });
    expect(Date.now() - started).toBeLessThan(SLOW);
    expect(response.events.map((event) => event.event).slice(-2)).toEqual(['content', 'done']);
    expect(response.events.at(-2)?.data).toMatchObject({
      content_type: 'FALLBACK',
      payload: { type: 'SEMANTIC_UNAVAILABLE', conclusion: null },
    });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'FALLBACK' });
    expect(response.text).not.toContain('DRAFT-MARKER');
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      const [rows] = await connection.query<RowDataPacket[]>(
        'SELECT status, fallback_reason FROM diagnosis_run WHERE run_id = ?',
        [String(response.events[0].data.run_id)],
      );
      expect(rows[0]).toMatchObject({ status: 'FALLBACK', fallback_reason: 'SEMANTIC_DEADLINE_EXCEEDED' });
    } finally {
      await connection.end();
    }
  });

  it.each(PHASES)(
    'a disconnect during %s cancels the run and sends nothing more',
    async (_phase, roles, slowRole) => {
      stub.load({ roles });
      const client = new AbortController();
      const watcher = setInterval(() => {
        if (stub.requestsFor(slowRole).length > 0) client.abort();
      }, 20);
      const response = await postChat(
        suite.app.baseUrl,
        { query: 'order-123 payment times out' },
        { signal: client.signal },
      );
      clearInterval(watcher);
      const names = response.events.map((event: SseEvent) => event.event);
      expect(names).not.toContain('done');
      expect(names).not.toContain('content');
      expect(await runRow(String(response.events[0].data.run_id))).toMatchObject({ status: 'CANCELLED' });
    },
  );
});
