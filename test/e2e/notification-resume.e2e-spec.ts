import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, createConnection, RowDataPacket } from 'mysql2/promise';
import { idempotencyKeyOf, NotificationSweeper } from '@app/notify';
import { alertmanagerBody, fingerprint, postAlert, waitForRunEnd } from '../support/alerts';
import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { NotificationReceiver } from '../support/notification-receivers';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_KEYS, TEST_MYSQL } from '../support/test-env';

interface DeliveryRow extends RowDataPacket {
  target_name: string;
  status: string;
  failure: string | null;
  owner_id: string;
  attempts: number;
}

/**
 * Notifications survive the replica that owed them: a claim left SENDING by a replica that stopped, a
 * delivery given up at shutdown, and a run's OWED rows its replica never claimed (alert-started or chat) are
 * finished by a sweep of another replica, once, with the same Idempotency-Key (docs/notifications.md). The real
 * app (MariaDB, Redis, the stub LLM), one loopback webhook receiver; sweeps are called directly (the
 * timer's interval is an hour here).
 */
describe('notifications a stopped replica left', () => {
  const stub = new StubLlmServer();
  const receiver = new NotificationReceiver(() => ({ status: 204 }));
  let app: RunningApp;
  let env: Record<string, string>;
  let db: Connection;

  const rowsOf = async (runId: string): Promise<Record<string, DeliveryRow>> => {
    const [rows] = await db.query<DeliveryRow[]>(
      'SELECT target_name, status, failure, owner_id, attempts FROM notification_delivery WHERE run_id = ?',
      [runId],
    );
    return Object.fromEntries(rows.map((row) => [row.target_name, row]));
  };

  /** Leaves a row as a replica would have: `ageSeconds` since its last update. */
  const leaveRow = async (
    runId: string,
    target: string,
    state: { status: string; failure?: string; owner: string; ageSeconds: number },
  ) => {
    await db.query(
      `INSERT INTO notification_delivery (run_id, target_name, target_kind, run_trigger, status, failure, owner_id, updated_at)
       VALUES (?, ?, 'webhook', 'chat', ?, ?, ?, NOW(3) - INTERVAL ? SECOND)`,
      [runId, target, state.status, state.failure ?? null, state.owner, state.ageSeconds],
    );
  };

  /** A finished chat run that asked for no notification. */
  const finishedRun = async (): Promise<string> => {
    const [plan, final] = agentTurns(draftJson({ marker: 'RESUMED' }));
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [plan, final],
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(
      app.baseUrl,
      { query: 'order-123 payment times out' },
      { apiKey: TEST_KEYS.operator },
    );
    expect(response.text).toContain('"outcome":"SUCCESS"');
    return String(response.events[0].data.run_id);
  };

  const requestsTo = (path: string) => receiver.requests.filter((request) => request.path === path);

  beforeAll(async () => {
    const hookUrl = await receiver.start();
    const file = join(mkdtempSync(join(tmpdir(), 'notify-resume-')), 'targets.yaml');
    writeFileSync(
      file,
      [
        'targets:',
        `  - { name: hook-a, kind: webhook, url: "${hookUrl}/a" }`,
        `  - { name: hook-b, kind: webhook, url: "${hookUrl}/b" }`,
      ].join('\n'),
    );
    env = {
      LLM_BASE_URL: await stub.start(),
      NOTIFY_TARGETS_FILE: file,
      NOTIFY_PUBLIC_BASE_URL: 'http://ui.example.test',
      NOTIFY_MAX_ATTEMPTS: '2',
      NOTIFY_BACKOFF_BASE_MS: '20',
      NOTIFY_BACKOFF_MAX_MS: '50',
      NOTIFY_TIMEOUT_MS: '1000',
      NOTIFY_SWEEP_INTERVAL_MS: '3600000',
      ALERT_DEDUP_WINDOW_SECONDS: '3600',
      ALERT_MAX_RUNS_PER_HOUR: '1000',
    };
    app = await startApp(env);
    db = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
    await receiver.stop();
    await stub.stop();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  it('takes over a SENDING claim older than the longest try and sends it with the same Idempotency-Key; a recent one is left', async () => {
    const runId = await finishedRun();
    await leaveRow(runId, 'hook-a', { status: 'SENDING', owner: 'stopped-replica', ageSeconds: 3600 });
    await leaveRow(runId, 'hook-b', { status: 'SENDING', owner: 'live-replica', ageSeconds: 1 });

    await app.app.get(NotificationSweeper).sweep();

    const rows = await rowsOf(runId);
    expect(rows['hook-a']).toMatchObject({ status: 'DELIVERED', failure: null, attempts: 1 });
    expect(rows['hook-a'].owner_id).not.toBe('stopped-replica');
    expect(rows['hook-b']).toMatchObject({ status: 'SENDING', owner_id: 'live-replica' });
    expect(requestsTo('/a')).toHaveLength(1);
    expect(requestsTo('/a')[0].headers['idempotency-key']).toBe(idempotencyKeyOf(runId, 'hook-a'));
    expect(JSON.parse(requestsTo('/a')[0].body)).toMatchObject({ run_id: runId, outcome: 'SUCCESS' });
    expect(requestsTo('/b')).toHaveLength(0);
  }, 60_000);

  it('resumes a delivery given up at shutdown, never one the target refused, and names a removed target', async () => {
    const runId = await finishedRun();
    await leaveRow(runId, 'hook-a', {
      status: 'FAILED',
      failure: 'SHUTDOWN',
      owner: 'stopped-replica',
      ageSeconds: 1,
    });
    await leaveRow(runId, 'hook-b', {
      status: 'FAILED',
      failure: 'REJECTED',
      owner: 'stopped-replica',
      ageSeconds: 3600,
    });
    await leaveRow(runId, 'hook-gone', { status: 'SENDING', owner: 'stopped-replica', ageSeconds: 3600 });

    await app.app.get(NotificationSweeper).sweep();

    const rows = await rowsOf(runId);
    expect(rows['hook-a']).toMatchObject({ status: 'DELIVERED', failure: null });
    expect(rows['hook-b']).toMatchObject({
      status: 'FAILED',
      failure: 'REJECTED',
      owner_id: 'stopped-replica',
    });
    expect(rows['hook-gone']).toMatchObject({ status: 'FAILED', failure: 'TARGET_REMOVED', attempts: 0 });
    expect(requestsTo('/a')).toHaveLength(1);
    expect(requestsTo('/b')).toHaveLength(0);
  }, 60_000);

  it('leaves the deliveries of a run that ended more than a day ago', async () => {
    const runId = await finishedRun();
    await db.query('UPDATE diagnosis_run SET ended_at = NOW(3) - INTERVAL 2 DAY WHERE run_id = ?', [runId]);
    await leaveRow(runId, 'hook-a', { status: 'SENDING', owner: 'stopped-replica', ageSeconds: 3600 });

    await app.app.get(NotificationSweeper).sweep();

    expect((await rowsOf(runId))['hook-a']).toMatchObject({ status: 'SENDING', owner_id: 'stopped-replica' });
    expect(receiver.requests).toHaveLength(0);
  }, 60_000);

  it('owes a chat run to the targets its request named, from its start', async () => {
    const [plan, final] = agentTurns(draftJson({ marker: 'OWED-CHAT' }));
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        // The run stays open long enough to see its rows before its end.
        'diagnosis-agent': [{ ...plan, delay_ms: 1500 }, final],
        'semantic-guard': [SUPPORTED],
      },
    });
    const answer = postChat(
      app.baseUrl,
      { query: 'order-123 payment times out', notify: ['hook-a'] },
      { apiKey: TEST_KEYS.operator },
    );
    let owed: RowDataPacket[] = [];
    const deadline = Date.now() + 10_000;
    while (owed.length === 0 && Date.now() < deadline) {
      // The other tests here leave chat rows SENDING or FAILED only: an OWED chat row is this run's.
      [owed] = await db.query<RowDataPacket[]>(
        "SELECT run_id, target_name, run_trigger FROM notification_delivery WHERE status = 'OWED' AND run_trigger = 'chat'",
      );
      if (owed.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const response = await answer;
    const runId = String(response.events[0].data.run_id);
    expect(owed).toEqual([{ run_id: runId, target_name: 'hook-a', run_trigger: 'chat' }]);
    const deliveredBy = Date.now() + 30_000;
    while ((await rowsOf(runId))['hook-a']?.status !== 'DELIVERED') {
      if (Date.now() > deliveredBy) throw new Error(`not delivered: ${JSON.stringify(await rowsOf(runId))}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(Object.keys(await rowsOf(runId))).toEqual(['hook-a']);
  }, 60_000);

  it('owes an alert-started run to every target from its start; one left OWED is sent once by two replicas sweeping', async () => {
    const [plan, final] = agentTurns(draftJson({ marker: 'ALERTED' }));
    stub.load({ roles: { 'diagnosis-agent': [plan, final], 'semantic-guard': [SUPPORTED] } });
    const labels = { alertname: 'ResumeMarker', severity: 'critical', service: 'order-service' };
    const answer = await postAlert(
      app.baseUrl,
      alertmanagerBody({ groupKey: `{}:{alertname="ResumeMarker",e2e="${fingerprint()}"}`, labels }),
    );
    expect(answer.status).toBe(202);
    const runId = answer.body.run_ids![0];
    await waitForRunEnd(app.baseUrl, answer.body.session_id!, runId);
    // The ordinary path: every configured target, the alert's labels in the message.
    const deadline = Date.now() + 30_000;
    while (Object.values(await rowsOf(runId)).filter((row) => row.status === 'DELIVERED').length < 2) {
      if (Date.now() > deadline) throw new Error(`not delivered: ${JSON.stringify(await rowsOf(runId))}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(JSON.parse(requestsTo('/a')[0].body)).toMatchObject({
      run_id: runId,
      trigger: 'alert',
      alert_labels: labels,
    });

    // Owed from the run's start: as if its replica had stopped before claiming, the rows are OWED again
    // and the run ended five minutes ago.
    await db.query(
      "UPDATE notification_delivery SET status = 'OWED', owner_id = 'stopped-replica' WHERE run_id = ?",
      [runId],
    );
    receiver.requests.length = 0;
    // Within a minute of the run's end the rows are its own replica's to claim: a sweep leaves them.
    await app.app.get(NotificationSweeper).sweep();
    expect(receiver.requests).toHaveLength(0);
    expect((await rowsOf(runId))['hook-a']).toMatchObject({ status: 'OWED' });
    await db.query('UPDATE diagnosis_run SET ended_at = NOW(3) - INTERVAL 5 MINUTE WHERE run_id = ?', [
      runId,
    ]);
    const replica = await startApp(env);
    try {
      await Promise.all([
        app.app.get(NotificationSweeper).sweep(),
        replica.app.get(NotificationSweeper).sweep(),
      ]);
    } finally {
      await replica.close();
    }
    const rows = await rowsOf(runId);
    expect(rows['hook-a']).toMatchObject({ status: 'DELIVERED' });
    expect(rows['hook-b']).toMatchObject({ status: 'DELIVERED' });
    expect(requestsTo('/a')).toHaveLength(1);
    expect(requestsTo('/b')).toHaveLength(1);
    expect(JSON.parse(requestsTo('/b')[0].body)).toMatchObject({ trigger: 'alert', alert_labels: labels });
  }, 120_000);
});
