import type { PoolConnection } from 'mysql2';
import { createConnection, Connection, RowDataPacket } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';
import { RetentionService, RunJournalRepository, RunRepository, TimelineRepository } from '@app/trace';
import { createHarnessFixture, HarnessFixture, startTestRun } from '../support/harness-fixture';
import { TEST_MYSQL } from '../support/test-env';

/**
 * The run journal and the run lease when other sessions hold the run's row: a lease dated when it is
 * written, a reaper that never closes its own replica's live run, a terminal write that survives one
 * lock-wait victim, rows too large for one packet, and an ending that could not be stored.
 */
describe('run journal under database contention (real MySQL)', () => {
  let fixture: HarnessFixture;
  let other: Connection;

  beforeAll(async () => {
    fixture = await createHarnessFixture({
      // A lease shorter than the lock the tests hold; heartbeats far apart, so only the tests renew and sweep.
      trace: { runLease: { heartbeatMs: 60_000, leaseMs: 1000 } },
      database: { lockWaitTimeoutSeconds: 3, writeGraceMs: 5000 },
    });
    other = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
  });
  afterAll(async () => {
    await other.end();
    await fixture.close();
  });

  const sql = async (text: string, params: unknown[] = []) =>
    (await other.query<RowDataPacket[]>(text, params))[0];

  /** Holds the run's row lock on another connection for `ms`, then commits. */
  async function holdRunRow(runId: string, ms: number): Promise<() => Promise<void>> {
    await other.query('START TRANSACTION');
    await other.query('SELECT run_id FROM diagnosis_run WHERE run_id = ? FOR UPDATE', [runId]);
    const released = new Promise<void>((resolve) => setTimeout(resolve, ms)).then(async () => {
      await other.query('COMMIT');
    });
    return () => released;
  }

  const FINISH = {
    status: 'SUCCESS' as const,
    releaseOutcome: 'SUCCESS' as const,
    conclusion: 'pool exhausted',
    modelCalls: 1,
    toolCalls: 0,
    inputTokens: 1,
    outputTokens: 1,
    totalTokens: 2,
    durationMs: 5,
  };

  it('dates a renewed lease when the row is written, so a renewal that waited for a lock is not born expired', async () => {
    const ctx = await startTestRun(fixture);
    const retention = fixture.app.get(RetentionService);
    const released = await holdRunRow(ctx.runId, 1800); // longer than the 1 s lease
    await retention.renewOwnLeases(); // waits for the lock
    await released();
    const [row] = await sql(
      'SELECT lease_expires_at > NOW(3) AS live, status FROM diagnosis_run WHERE run_id = ?',
      [ctx.runId],
    );
    expect(Number(row.live)).toBe(1);
    ctx.close();
  });

  it('never closes a run its own replica is still executing, whatever its lease says; closes it once released', async () => {
    const ctx = await startTestRun(fixture);
    await sql('UPDATE diagnosis_run SET lease_expires_at = NOW(3) - INTERVAL 1 MINUTE WHERE run_id = ?', [
      ctx.runId,
    ]);
    const retention = fixture.app.get(RetentionService);
    await retention.closeExpiredLeases();
    expect((await fixture.app.get(RunRepository).findRun(ctx.runId))?.status).toBe('RUNNING');

    fixture.app.get(RunRepository).releaseRun(ctx.runId);
    await retention.closeExpiredLeases();
    expect(await fixture.app.get(RunRepository).findRun(ctx.runId)).toMatchObject({
      status: 'FAILED',
      errorCode: 'ABANDONED',
    });
    const events = await fixture.app.get(TimelineRepository).listForRun(ctx.runId);
    expect(events.map((event) => [event.eventType, event.details])).toEqual([
      ['RUN_FINISHED', { status: 'FAILED' }],
    ]);
    ctx.close();
  });

  it('writes the terminal state once more after a lock-wait victim, and stores it', async () => {
    const ctx = await startTestRun(fixture);
    ctx.journal.event('RUN', 'RUN_STARTED');
    // Held past the 3 s lock wait of the first attempt, released well before the second one gives up.
    const released = await holdRunRow(ctx.runId, 4000);
    await expect(ctx.journal.finish(FINISH)).resolves.toBe(true);
    await released();
    expect((await fixture.app.get(RunRepository).findRun(ctx.runId))?.status).toBe('SUCCESS');
    const events = await fixture.app.get(TimelineRepository).listForRun(ctx.runId);
    expect(events.map((event) => event.eventType)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    ctx.close();
  });

  it('stores the terminal state without the audit texts when the rows exceed max_allowed_packet', async () => {
    const [{ limit }] = await sql('SELECT @@max_allowed_packet AS `limit`');
    const ctx = await startTestRun(fixture);
    // Steps whose audit text, sealed, adds up to more than one packet may carry.
    const text = 'x'.repeat(150_000);
    const steps = Math.ceil(Number(limit) / 150_000) + 2;
    for (let index = 1; index <= steps; index += 1) {
      ctx.journal.modelStep(
        {
          stepIndex: index,
          role: 'diagnosis-agent',
          attempt: 1,
          status: 'OK',
          errorCode: null,
          finishReason: 'stop',
          toolCallCount: 0,
          inputTokens: 1,
          outputTokens: 1,
          totalTokens: 2,
          startedAt: new Date(),
          durationMs: 1,
        },
        { contentSource: 'ASSISTANT_TEXT_ONLY', reasoningContent: null, assistantText: text },
      );
    }
    await expect(ctx.journal.finish(FINISH)).resolves.toBe(true);
    expect((await fixture.app.get(RunRepository).findRun(ctx.runId))?.status).toBe('SUCCESS');
    const [{ count }] = await sql('SELECT COUNT(*) AS count FROM agent_step WHERE run_id = ?', [ctx.runId]);
    expect(Number(count)).toBe(steps);
    ctx.close();
  });

  it('stores an ending that could not be written as the one the client heard, with RUN_FINISHED, at the next heartbeat', async () => {
    const ctx = await startTestRun(fixture);
    const runs = fixture.app.get(RunRepository);
    // The terminal write "committed" SUCCESS but the client was told INTERNAL_ERROR (acknowledgement lost).
    await fixture.app
      .get(RunJournalRepository)
      .finish(
        ctx.runId,
        { events: [], steps: [], invocations: [], intent: null, budgetExhausted: null },
        FINISH,
      );
    runs.endingNotStored(ctx.runId, { status: 'FAILED', errorCode: 'INTERNAL_ERROR' });
    runs.releaseRun(ctx.runId);
    await expect(fixture.app.get(RetentionService).reconcileUnconfirmed()).resolves.toBeGreaterThanOrEqual(1);
    expect(await runs.findRun(ctx.runId)).toMatchObject({
      status: 'FAILED',
      errorCode: 'INTERNAL_ERROR',
      conclusion: null,
      publishedResult: null,
    });
    const events = await fixture.app.get(TimelineRepository).listForRun(ctx.runId);
    expect(events.filter((event) => event.eventType === 'RUN_FINISHED')).toHaveLength(1);
    // Done: the next heartbeat has nothing left to store for it.
    await expect(fixture.app.get(RetentionService).reconcileUnconfirmed()).resolves.toBe(0);
    ctx.close();
  });

  it('purges a backlog in small batches while a live run keeps writing, and never a session with a run in flight', async () => {
    const prefix = `bk${Date.now().toString(36)}`;
    const sessions = 600;
    const old = '2020-01-01 00:00:00.000';
    const values = (count: number, row: (index: number) => unknown[]) =>
      Array.from({ length: count }, (_unused, index) => row(index));
    await other.query(
      'INSERT INTO chat_session (session_id, owner_key_digest, created_at, updated_at) VALUES ?',
      [values(sessions, (index) => [`${prefix}-s${index}`, '0'.repeat(64), old, old])],
    );
    await other.query('INSERT INTO diagnosis_run (run_id, session_id, query, status, created_at) VALUES ?', [
      values(sessions, (index) => [
        `${prefix}-r${index}`,
        `${prefix}-s${index}`,
        'q',
        index === 0 ? 'RUNNING' : 'SUCCESS',
        old,
      ]),
    ]);
    await other.query('INSERT INTO diagnosis_trace_event (run_id, phase, event_type, created_at) VALUES ?', [
      values(sessions, (index) => [`${prefix}-r${index}`, 'RUN', 'RUN_STARTED', old]),
    ]);
    const live = await startTestRun(fixture);
    const writes: Promise<void>[] = [];
    const purging = fixture.app.get(RetentionService).purge();
    for (let index = 0; index < 10; index += 1) {
      live.journal.event('RUN', 'RUN_STARTED', { n: index });
      writes.push(live.journal.flush());
    }
    const result = await purging;
    await Promise.all(writes);
    const left = await sql('SELECT session_id FROM chat_session WHERE session_id LIKE ?', [`${prefix}-%`]);
    // The session whose run is still RUNNING stays until that run has ended.
    expect(left.map((row) => row.session_id)).toEqual([`${prefix}-s0`]);
    expect(result.deleted.chat_session).toBeGreaterThanOrEqual(sessions - 1);
    expect(result.deleted.diagnosis_trace_event).toBeGreaterThanOrEqual(sessions - 1);
    expect(await fixture.app.get(TimelineRepository).listForRun(live.runId)).toHaveLength(10);
    live.close();
  });
});

describe('run journal when the service pool has no free connection (real MySQL)', () => {
  let fixture: HarnessFixture;

  beforeAll(async () => {
    fixture = await createHarnessFixture({ database: { poolSize: 2, writeGraceMs: 500 } });
  });
  afterAll(async () => {
    await fixture.close();
  });

  const obtain = () =>
    (fixture.app.get(DataSource).driver as MysqlDriver).obtainMasterConnection() as Promise<PoolConnection>;

  it('gives up a write that gets no connection within its limit, sends nothing, and returns the late connection to the pool', async () => {
    const ctx = await startTestRun(fixture);
    const held = [await obtain(), await obtain()];
    const journal = fixture.app.get(RunJournalRepository);
    const empty = { events: [], steps: [], invocations: [], intent: null, budgetExhausted: null };
    await expect(
      journal.finish(ctx.runId, empty, {
        status: 'SUCCESS',
        releaseOutcome: 'SUCCESS',
        conclusion: 'never written',
        modelCalls: 0,
        toolCalls: 0,
        inputTokens: 0,
        outputTokens: 0,
        totalTokens: 0,
        durationMs: 1,
      }),
    ).rejects.toMatchObject({ code: 'SUPERBIZ_NO_CONNECTION_IN_TIME' });
    held.forEach((connection) => connection.release());
    // The connection the abandoned wait got later went back: the pool's two are both free again.
    const again = [await obtain(), await obtain()];
    again.forEach((connection) => connection.release());
    expect((await fixture.app.get(RunRepository).findRun(ctx.runId))?.status).toBe('RUNNING');
    ctx.close();
  });
});
