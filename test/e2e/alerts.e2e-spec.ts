import { createConnection } from 'mysql2/promise';
import { RetentionService } from '@app/trace';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { alertmanagerBody, fingerprint, postAlert, readTrace, waitForRunEnd } from '../support/alerts';
import { RunningApp, startApp, useStubbedApp } from '../support/app-under-test';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { postChat } from '../support/sse-client';
import { TEST_KEYS, TEST_MYSQL } from '../support/test-env';

/** A group key no other test file uses. */
const groupKey = (name: string) => `{}:{alertname="${name}",e2e="${fingerprint()}"}`;

/** The agent's two turns for an alert whose query holds `marker`, whatever order runs interleave in. */
function agentFor(marker: string, finalDraft: string) {
  const [plan, final] = agentTurns(finalDraft);
  return [
    { ...plan, match: marker, turn: 0 },
    { ...final, match: marker, turn: 1 },
  ];
}

describe('POST /api/alerts/alertmanager', () => {
  const stubbed = useStubbedApp({
    ALERT_DEDUP_WINDOW_SECONDS: '3600',
    ALERT_MAX_RUNS_PER_HOUR: '1000',
  });

  beforeAll(() => {
    stubbed.stub.load({
      roles: {
        'diagnosis-agent': [
          ...agentFor('ReleasedMarker', draftJson({ marker: 'RELEASED' })),
          ...agentFor('RaceMarker', draftJson({ marker: 'RACE' })),
          // The alert's runbook_url appears in the draft: the alert's text vouches for nothing.
          ...agentFor(
            'PoisonedMarker',
            draftJson({
              marker: 'POISONED',
              text: 'follow https://evil.example.com/runbooks/pool-exhaustion for HikariPool connection timeouts',
            }),
          ),
        ],
        'semantic-guard': [{ ...SUPPORTED, match: '.' }],
      },
    });
  });

  it('starts one investigation that ends released, visible in the trace API with the alert labels', async () => {
    const key = groupKey('ReleasedMarker');
    const labels = { alertname: 'ReleasedMarker', severity: 'critical', service: 'order-service' };
    const answer = await postAlert(stubbed.app.baseUrl, alertmanagerBody({ groupKey: key, labels }));
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ outcome: 'INVESTIGATION_STARTED', run_ids: [expect.any(String)] });
    const sessionId = answer.body.session_id!;
    const runId = answer.body.run_ids![0];

    const trace = await waitForRunEnd(stubbed.app.baseUrl, sessionId, runId);
    expect(trace.run).toMatchObject({
      run_id: runId,
      intent: 'DIAGNOSIS',
      status: 'SUCCESS',
      release_outcome: 'SUCCESS',
      conclusion: expect.stringContaining('RELEASED'),
    });
    expect((trace.run as { query: string }).query).toMatch(
      /^Alert investigation: "ReleasedMarker", severity "critical"/,
    );
    expect(trace.session).toMatchObject({
      session_id: sessionId,
      origin: 'ALERT',
      alert: {
        labels,
        notifications: [
          { status: 'firing', outcome: 'INVESTIGATION_STARTED', run_id: runId, alert_count: 1 },
        ],
      },
    });
    // Routed by code, not by the model: no intent-router call.
    const timeline = trace.timeline as { event_type: string; details: Record<string, unknown> | null }[];
    expect(timeline.find((event) => event.event_type === 'ROUTED')?.details).toMatchObject({ by: 'CODE' });
    expect(stubbed.stub.requests.some((request) => request.role === 'intent-router')).toBe(false);
    // The agent saw the alert's text quoted, and the window's end.
    const agentPrompt = JSON.stringify(
      stubbed.stub.requests.find((request) => request.role === 'diagnosis-agent'),
    );
    expect(agentPrompt).toContain('Payment requests time out in order-service');
    expect(agentPrompt).toContain('time windows end at');

    // The alert groups' sessions: listed for any trace_reader under scope=alert, with their labels.
    const list = await readTrace(stubbed.app.baseUrl, '/api/diagnosis/sessions?scope=alert&limit=100');
    expect(list.status).toBe(200);
    expect(list.body.sessions).toContainEqual(
      expect.objectContaining({ session_id: sessionId, origin: 'ALERT', alert_labels: labels, run_count: 1 }),
    );
    const own = await readTrace(stubbed.app.baseUrl, '/api/diagnosis/sessions?limit=100');
    expect((own.body.sessions as { session_id: string }[]).map((s) => s.session_id)).not.toContain(sessionId);

    // A repeat within the window starts nothing and is recorded; so is the group's resolution.
    const repeat = await postAlert(stubbed.app.baseUrl, alertmanagerBody({ groupKey: key, labels }));
    expect(repeat).toMatchObject({
      status: 202,
      body: { outcome: 'DUPLICATE_WITHIN_WINDOW', session_id: sessionId, run_ids: [] },
    });
    const resolved = await postAlert(
      stubbed.app.baseUrl,
      alertmanagerBody({ groupKey: key, labels, status: 'resolved' }),
    );
    expect(resolved).toMatchObject({
      status: 202,
      body: { outcome: 'RESOLVED_RECORDED', session_id: sessionId, run_ids: [] },
    });
    const after = await readTrace(stubbed.app.baseUrl, `/api/diagnosis/${sessionId}/trace`);
    expect((after.body.runs as unknown[]).length).toBe(1);
    expect((after.body.session as { alert: { notifications: unknown[] } }).alert.notifications).toEqual([
      expect.objectContaining({ status: 'resolved', outcome: 'RESOLVED_RECORDED', run_id: null }),
      expect.objectContaining({ status: 'firing', outcome: 'DUPLICATE_WITHIN_WINDOW', run_id: null }),
      expect.objectContaining({ status: 'firing', outcome: 'INVESTIGATION_STARTED', run_id: runId }),
    ]);
  });

  it('starts exactly one investigation when the same group arrives several times at once', async () => {
    const body = alertmanagerBody({
      groupKey: groupKey('RaceMarker'),
      labels: { alertname: 'RaceMarker', severity: 'warning' },
    });
    const answers = await Promise.all([1, 2, 3, 4].map(() => postAlert(stubbed.app.baseUrl, body)));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
    const started = answers.filter((answer) => answer.body.outcome === 'INVESTIGATION_STARTED');
    expect(started).toHaveLength(1);
    for (const answer of answers.filter((a) => a !== started[0])) {
      expect(['RUN_IN_PROGRESS', 'DUPLICATE_WITHIN_WINDOW']).toContain(answer.body.outcome);
      expect(answer.body.session_id).toBe(started[0].body.session_id);
    }
    await waitForRunEnd(stubbed.app.baseUrl, started[0].body.session_id!, started[0].body.run_ids![0]);
  });

  it('never releases a link the alert itself supplied: runbook_url vouches for nothing', async () => {
    const answer = await postAlert(
      stubbed.app.baseUrl,
      alertmanagerBody({
        groupKey: groupKey('PoisonedMarker'),
        labels: { alertname: 'PoisonedMarker', severity: 'critical' },
        annotations: {
          summary: 'Pool exhausted',
          runbook_url: 'https://evil.example.com/runbooks/pool-exhaustion',
        },
      }),
    );
    expect(answer.body.outcome).toBe('INVESTIGATION_STARTED');
    const trace = await waitForRunEnd(stubbed.app.baseUrl, answer.body.session_id!, answer.body.run_ids![0]);
    expect(trace.run).toMatchObject({
      status: 'FALLBACK',
      release_outcome: 'FALLBACK',
      fallback_reason: 'RELEASE_CHECK_FAILED',
    });
    // The query points the agent at the knowledge base by name, never at the alert's URL.
    const query = (trace.run as { query: string }).query;
    expect(query).toContain('"pool exhaustion"');
    expect(query).not.toContain('evil.example.com');
  });

  it('takes Grafana alerting’s webhook body (version "1" and its extra fields)', async () => {
    const body: Record<string, unknown> = {
      ...alertmanagerBody({ groupKey: groupKey('GrafanaShape'), status: 'resolved' }),
      version: '1',
      orgId: 1,
      title: '[RESOLVED] GrafanaShape',
      state: 'ok',
      message: 'resolved',
    };
    const alerts = body.alerts as Record<string, unknown>[];
    Object.assign(alerts[0], {
      silenceURL: 'http://grafana.example/alerting/silence/new',
      dashboardURL: '',
      panelURL: '',
      values: { B: 1, C: 0 },
      valueString: "[ var='B' value=1 ]",
    });
    const answer = await postAlert(stubbed.app.baseUrl, body);
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'RESOLVED_RECORDED', run_ids: [] } });
  });

  it.each([
    ['not JSON', '{"version":', /JSON|parse|body/i],
    ['no alerts', { ...alertmanagerBody(), alerts: [] }, /alerts must hold at least one alert/],
    ['an unknown version', { ...alertmanagerBody(), version: '3' }, /version must be "4"/],
    ['an unknown status', { ...alertmanagerBody(), status: 'pending' }, /status must be firing or resolved/],
    [
      'too many alerts',
      alertmanagerBody({
        alerts: Array.from({ length: 101 }, () => ({
          status: 'firing' as const,
          labels: { alertname: 'Many' },
          annotations: {},
          startsAt: new Date().toISOString(),
          endsAt: '0001-01-01T00:00:00Z',
          generatorURL: '',
          fingerprint: fingerprint(),
        })),
      }),
      /at most 100 alerts/,
    ],
    [
      'a label value over its bound',
      alertmanagerBody({ labels: { alertname: 'x'.repeat(1025) } }),
      /commonLabels must be an object of at most 64 string values/,
    ],
    [
      'an annotation that is not a string',
      { ...alertmanagerBody(), commonAnnotations: { summary: { nested: true } } },
      /commonAnnotations must be an object/,
    ],
    ['an unknown field', { ...alertmanagerBody(), runCommand: 'rm -rf /' }, /runCommand should not exist/],
    [
      'a bad fingerprint',
      alertmanagerBody({
        alerts: [
          {
            status: 'firing',
            labels: { alertname: 'Bad' },
            annotations: {},
            startsAt: new Date().toISOString(),
            endsAt: '0001-01-01T00:00:00Z',
            generatorURL: '',
            fingerprint: '../../etc',
          },
        ],
      }),
      /fingerprint must be 1-64 letters or digits/,
    ],
  ])('answers 400 with a message for %s', async (_name, body, message) => {
    const answer = await postAlert(stubbed.app.baseUrl, body);
    expect(answer.status).toBe(400);
    expect([answer.body.message].flat().join('\n')).toMatch(message);
  });

  it('needs an alert_ingest key, and that key opens nothing else', async () => {
    const body = alertmanagerBody({ groupKey: groupKey('AuthCheck') });
    expect((await postAlert(stubbed.app.baseUrl, body, null)).status).toBe(401);
    expect((await postAlert(stubbed.app.baseUrl, body, 'not-a-configured-key-000')).status).toBe(401);
    expect((await postAlert(stubbed.app.baseUrl, body, TEST_KEYS.chat)).status).toBe(403);
    expect((await postAlert(stubbed.app.baseUrl, body, TEST_KEYS.traceReader)).status).toBe(403);
    const chat = await postChat(stubbed.app.baseUrl, { query: 'hello' }, { apiKey: TEST_KEYS.alertIngest });
    expect(chat.status).toBe(403);
    expect(
      (await readTrace(stubbed.app.baseUrl, '/api/diagnosis/sessions?scope=alert', TEST_KEYS.alertIngest))
        .status,
    ).toBe(403);
  });
});

describe('alert-started runs: cap', () => {
  const stubbed = useStubbedApp({ ALERT_MAX_RUNS_PER_HOUR: '0' });

  it('names the hourly cap when it is reached, and records it on the group’s session', async () => {
    const answer = await postAlert(
      stubbed.app.baseUrl,
      alertmanagerBody({ groupKey: groupKey('CapMarker') }),
    );
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'HOURLY_CAP_REACHED', run_ids: [] } });
    const trace = await readTrace(stubbed.app.baseUrl, `/api/diagnosis/${answer.body.session_id}/trace`);
    expect(trace.body.runs).toEqual([]);
    expect((trace.body.session as { alert: { notifications: unknown[] } }).alert.notifications).toEqual([
      expect.objectContaining({ outcome: 'HOURLY_CAP_REACHED', run_id: null }),
    ]);
  });
});

describe('alert groups across replicas', () => {
  // Two replicas of the service on the same MySQL and Redis, as behind a load balancer.
  const stub = new StubLlmServer();
  const replicas: RunningApp[] = [];

  beforeAll(async () => {
    const llm = await stub.start();
    const [plan, final] = agentTurns(draftJson({ marker: 'REPLICAS' }));
    stub.load({
      roles: {
        'diagnosis-agent': [
          { ...plan, match: 'ReplicaMarker', turn: 0 },
          { ...final, match: 'ReplicaMarker', turn: 1 },
        ],
        'semantic-guard': [{ ...SUPPORTED, match: '.' }],
      },
    });
    for (let index = 0; index < 2; index += 1) replicas.push(await startApp({ LLM_BASE_URL: llm }));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await stub.stop();
  });

  it('starts exactly one investigation when both replicas receive the same group at once', async () => {
    const body = alertmanagerBody({
      groupKey: groupKey('ReplicaMarker'),
      labels: { alertname: 'ReplicaMarker', severity: 'critical' },
    });
    // Alertmanager in HA sends each notification from every peer: several at once to each replica.
    const answers = await Promise.all(
      [0, 1, 0, 1, 0, 1].map((index) => postAlert(replicas[index].baseUrl, body)),
    );
    const started = answers.filter((answer) => answer.body.outcome === 'INVESTIGATION_STARTED');
    expect(started).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.body.session_id)).size).toBe(1);
    const trace = await waitForRunEnd(
      replicas[0].baseUrl,
      started[0].body.session_id!,
      started[0].body.run_ids![0],
    );
    expect(trace.run).toMatchObject({ status: 'SUCCESS' });
    expect((trace.session as { alert: { notifications: unknown[] } }).alert.notifications).toHaveLength(6);
  });
});

describe('alert groups: retention', () => {
  const stubbed = useStubbedApp({ ALERT_MAX_RUNS_PER_HOUR: '0' });

  it('purges an expired alert session with its group and notifications; the next notification starts afresh', async () => {
    const key = groupKey('PurgeMarker');
    const first = await postAlert(
      stubbed.app.baseUrl,
      alertmanagerBody({ groupKey: key, status: 'resolved' }),
    );
    const sessionId = first.body.session_id!;
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    const count = async (table: string) =>
      Number(
        (
          (await connection.query(`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`, [
            sessionId,
          ])) as [{ n: number }[], unknown]
        )[0][0].n,
      );
    try {
      expect([await count('alert_group'), await count('alert_notification')]).toEqual([1, 1]);
      await connection.query(
        'UPDATE chat_session SET updated_at = NOW(3) - INTERVAL 400 DAY WHERE session_id = ?',
        [sessionId],
      );
      await stubbed.app.app.get(RetentionService).purge();
      expect([
        await count('chat_session'),
        await count('alert_group'),
        await count('alert_notification'),
      ]).toEqual([0, 0, 0]);
    } finally {
      await connection.end();
    }
    const again = await postAlert(
      stubbed.app.baseUrl,
      alertmanagerBody({ groupKey: key, status: 'resolved' }),
    );
    expect(again.body.outcome).toBe('RESOLVED_RECORDED');
    expect(again.body.session_id).not.toBe(sessionId);
  });
});

describe('alert-started runs: their own bounded share of capacity', () => {
  // Two slots: the alert share holds at most one and queues one more; chats keep the other.
  const stubbed = useStubbedApp({
    CHAT_MAX_IN_FLIGHT: '2',
    ALERT_MAX_IN_FLIGHT: '1',
    ALERT_MAX_QUEUE: '1',
    // Long enough that the share is still full while the test posts (a loaded machine), short enough to end.
    HARNESS_RUN_TIMEOUT_MS: '15000',
    HARNESS_GUARD_TIME_RESERVE_MS: '1000',
  });

  beforeAll(() => {
    stubbed.stub.load({
      roles: {
        // Every alert investigation's agent waits until its run's deadline: the share stays full.
        'diagnosis-agent': [{ content: 'waiting', match: 'Alert investigation', delay_ms: 600_000 }],
        'intent-router': [{ content: 'SYSTEM_CHAT', match: '.' }],
        'system-chat': [{ content: 'I diagnose faults from verified evidence.', match: '.' }],
      },
    });
  });

  it('keeps interactive chats answered while the alert share is full and its queue too', async () => {
    const firstGroup = alertmanagerBody({ groupKey: groupKey('ShareOne') });
    const first = await postAlert(stubbed.app.baseUrl, firstGroup);
    const second = await postAlert(stubbed.app.baseUrl, alertmanagerBody({ groupKey: groupKey('ShareTwo') }));
    expect(first.body.outcome).toBe('INVESTIGATION_STARTED');
    expect(second.body.outcome).toBe('INVESTIGATION_STARTED');
    // A repeat of the group under investigation starts nothing, and says why.
    const repeat = await postAlert(stubbed.app.baseUrl, firstGroup);
    expect(repeat).toMatchObject({ status: 202, body: { outcome: 'RUN_IN_PROGRESS', run_ids: [] } });
    const third = await postAlert(
      stubbed.app.baseUrl,
      alertmanagerBody({ groupKey: groupKey('ShareThree') }),
    );
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('30');
    expect(String(third.body.message)).toMatch(/^ALERT_QUEUE_FULL/);

    const chat = await postChat(
      stubbed.app.baseUrl,
      { query: 'what can you do?' },
      { apiKey: TEST_KEYS.chat },
    );
    expect(chat.status).toBe(200);
    expect(chat.events.at(-1)).toEqual({ event: 'done', data: { outcome: 'SUCCESS' } });

    for (const answer of [first, second]) {
      const trace = await waitForRunEnd(
        stubbed.app.baseUrl,
        answer.body.session_id!,
        answer.body.run_ids![0],
        120_000,
      );
      expect(['FALLBACK', 'FAILED']).toContain((trace.run as { status: string }).status);
    }
  }, 120_000);
});
