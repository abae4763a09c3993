import { createConnection, RowDataPacket } from 'mysql2/promise';
import { randomUUID } from 'node:crypto';
import { classifyDatabaseError, RetentionService, RunJournalRepository, RunRepository } from '@app/trace';
import { createHarnessFixture, HarnessFixture, startTestRun } from '../support/harness-fixture';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_MYSQL } from '../support/test-env';

/**
 * The run journal when the service database stops answering (through a proxy that holds packets back):
 * a write ends at the run's deadline plus the grace instead of hanging; a terminal write whose
 * acknowledgement was lost is read back, so the caller is told what MySQL holds; an ending that could not
 * be stored is stored as announced once MySQL answers again.
 */
describe('run journal with a frozen database (real MySQL behind a proxy)', () => {
  const proxy = new TcpProxy(TEST_MYSQL.port, TEST_MYSQL.host);
  let fixture: HarnessFixture;

  beforeAll(async () => {
    const port = await proxy.start();
    fixture = await createHarnessFixture({
      database: { port, writeGraceMs: 1000, lockWaitTimeoutSeconds: 3 },
      trace: { runLease: { heartbeatMs: 60_000, leaseMs: 20_000 } },
    });
  });
  afterAll(async () => {
    proxy.thaw();
    await fixture.close();
    await proxy.cut();
  });

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
  const EMPTY = { events: [], steps: [], invocations: [], intent: null, budgetExhausted: null };

  async function statusOf(runId: string): Promise<RowDataPacket | undefined> {
    const admin = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      const [[row]] = await admin.query<RowDataPacket[]>(
        'SELECT status, error_code FROM diagnosis_run WHERE run_id = ?',
        [runId],
      );
      return row;
    } finally {
      await admin.end();
    }
  }

  it('a terminal write into a frozen database ends near the deadline, unstored; the announced ending is stored once it answers', async () => {
    const ctx = await startTestRun(fixture, { timeoutMs: 1000 });
    const runId = ctx.runId;
    const journals = fixture.app.get(RunJournalRepository);
    // Warm the pool, so the write goes out on an open connection whose answers never come.
    await journals.write(runId, { ...EMPTY, intent: 'DIAGNOSIS' }, null);
    proxy.freeze();
    // Without a write limit this never returns (the jest timeout fails the test).
    const failure = await journals
      .finish(runId, EMPTY, FINISH, Date.now() + 500)
      .catch((error: unknown) => error);
    expect(classifyDatabaseError(failure)).toBe('TIMED_OUT');
    fixture.app.get(RunRepository).endingNotStored(runId, { status: 'FAILED', errorCode: 'INTERNAL_ERROR' });
    proxy.thaw();
    await fixture.app.get(RetentionService).reconcileUnconfirmed();
    expect(await statusOf(runId)).toMatchObject({ status: 'FAILED', error_code: 'INTERNAL_ERROR' });
    ctx.close();
  });

  it('a terminal write whose acknowledgement is lost is read back: the caller is told it was stored', async () => {
    const ctx = await startTestRun(fixture);
    const journals = fixture.app.get(RunJournalRepository);
    // Warm the pool so the write goes out on a connection that is open now, then hold its answers back.
    await journals.write(ctx.runId, { ...EMPTY, intent: 'DIAGNOSIS' }, null);
    proxy.freezeAnswers();
    try {
      await expect(journals.finish(ctx.runId, EMPTY, FINISH, Date.now())).resolves.toBe(true);
    } finally {
      proxy.thaw();
    }
    expect(await statusOf(ctx.runId)).toMatchObject({ status: 'SUCCESS' });
    ctx.close();
  });

  it('answers an admission that cannot be written in time with an error instead of waiting', async () => {
    proxy.freeze();
    try {
      const error = await fixture.app
        .get(RunRepository)
        .startRun({
          sessionId: `s-${randomUUID()}`,
          runId: `r-${randomUUID()}`,
          query: 'q',
          ownerKeyDigest: '0'.repeat(64),
        })
        .catch((caught: unknown) => caught);
      expect(classifyDatabaseError(error)).toBe('TIMED_OUT');
    } finally {
      proxy.thaw();
    }
  });
});
