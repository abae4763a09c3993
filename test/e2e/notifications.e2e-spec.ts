import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NotificationDeliveryView, RunTrace } from '@app/contracts';
import { RunNotifier } from '@app/notify';
import { RunningApp, startApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED, UNSUPPORTED } from '../support/diagnosis-scripts';
import { NotificationReceiver, ReceivedRequest } from '../support/notification-receivers';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_KEYS } from '../support/test-env';

/** chat and trace_reader: it asks for notifications and reads the run's trace. */
const KEY = TEST_KEYS.operator;
const UI = 'http://ui.example.test/agent';
const SECRETS = {
  HOOK_SECRET: 'hook-signing-secret',
  FEISHU_SECRET: 'feishu-signing-secret',
  DING_TOKEN: 'ding-access-token',
  DING_SECRET: 'SECding-signing-secret',
  WECOM_KEY: 'wecom-good-key',
  WECOM_BAD_KEY: 'wecom-revoked-key',
};
const EVERY_TARGET = [
  'ops-webhook',
  'ops-slack',
  'ops-feishu',
  'ops-dingtalk',
  'ops-wecom',
  'wecom-revoked',
  'hook-rejects',
  'hook-hangs',
];

/**
 * Notifications out, end to end: the real app (MariaDB, Redis, the stub LLM) runs a chat that asks for
 * notification, and one loopback receiver per vendor kind checks the payload format and the signature
 * and answers the errors, 429s, 5xx and silences that retry and classification must handle.
 */
describe('notifications of chat-started runs', () => {
  const stub = new StubLlmServer();
  // The generic webhook: 503 once, then 200; /reject answers 400; /hang never answers.
  const webhook = new NotificationReceiver((request, seen) =>
    request.path === '/reject'
      ? { status: 400, body: '{"error":"bad"}' }
      : request.path === '/hang'
        ? 'hang'
        : seen === 0
          ? { status: 503 }
          : { status: 204 },
  );
  // Slack: rate-limited once (Retry-After 0), then its documented `ok`.
  const slack = new NotificationReceiver((_request, seen) =>
    seen === 0
      ? { status: 429, headers: { 'retry-after': '0' }, body: 'rate_limited' }
      : { status: 200, body: 'ok' },
  );
  const feishu = new NotificationReceiver(() => ({
    status: 200,
    body: '{"code":0,"msg":"success","data":{}}',
  }));
  const dingtalk = new NotificationReceiver(() => ({ status: 200, body: '{"errcode":0,"errmsg":"ok"}' }));
  // WeCom answers a revoked key with HTTP 200 and an errcode: a failure only the body tells.
  const wecom = new NotificationReceiver((request) =>
    request.query.get('key') === SECRETS.WECOM_KEY
      ? { status: 200, body: '{"errcode":0,"errmsg":"ok"}' }
      : { status: 200, body: '{"errcode":93000,"errmsg":"invalid webhook url"}' },
  );
  const receivers = [webhook, slack, feishu, dingtalk, wecom];
  let app: RunningApp;
  /** The boot environment, so a second replica can be started with the same targets. */
  let env: Record<string, string>;

  const traceOf = async (sessionId: string, runId: string): Promise<RunTrace> => {
    const response = await fetch(`${app.baseUrl}/api/diagnosis/${sessionId}/trace?runId=${runId}`, {
      headers: { 'x-api-key': KEY },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as RunTrace;
  };

  /** The run's deliveries once none is SENDING any more (polled; the deadline is generous on purpose). */
  const settledDeliveries = async (sessionId: string, runId: string, count: number) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { notifications } = await traceOf(sessionId, runId);
      if (notifications.length === count && notifications.every((row) => row.status !== 'SENDING')) {
        return Object.fromEntries(notifications.map((row) => [row.target, row])) as Record<
          string,
          NotificationDeliveryView
        >;
      }
      if (Date.now() > deadline) throw new Error(`deliveries not settled: ${JSON.stringify(notifications)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const chat = async (notify: string[] | undefined, marker: string, verdict: typeof SUPPORTED) => {
    const [plan, final] = agentTurns(draftJson({ marker }));
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [plan, final],
        'semantic-guard': [verdict],
      },
    });
    const response = await postChat(
      app.baseUrl,
      { query: 'order-123 payment times out', notify },
      { apiKey: KEY },
    );
    expect(response.status).toBe(200);
    const metadata = response.events[0].data;
    return { sessionId: String(metadata.session_id), runId: String(metadata.run_id), text: response.text };
  };

  beforeAll(async () => {
    const [hookUrl, slackUrl, feishuUrl, dingUrl, wecomUrl] = await Promise.all(
      receivers.map((r) => r.start()),
    );
    const dir = mkdtempSync(join(tmpdir(), 'notify-e2e-'));
    const file = join(dir, 'targets.yaml');
    writeFileSync(
      file,
      [
        'targets:',
        `  - { name: ops-webhook, kind: webhook, url: "${hookUrl}/in", secret_env: HOOK_SECRET }`,
        '  - { name: ops-slack, kind: slack, url_env: SLACK_URL }',
        '  - { name: ops-feishu, kind: feishu, url_env: FEISHU_URL, secret_env: FEISHU_SECRET }',
        `  - { name: ops-dingtalk, kind: dingtalk, url: "${dingUrl}/robot/send", access_token_env: DING_TOKEN, secret_env: DING_SECRET }`,
        `  - { name: ops-wecom, kind: wecom, url: "${wecomUrl}/cgi-bin/webhook/send", key_env: WECOM_KEY }`,
        `  - { name: wecom-revoked, kind: wecom, url: "${wecomUrl}/cgi-bin/webhook/send", key_env: WECOM_BAD_KEY }`,
        `  - { name: hook-rejects, kind: webhook, url: "${hookUrl}/reject" }`,
        `  - { name: hook-hangs, kind: webhook, url: "${hookUrl}/hang" }`,
      ].join('\n'),
    );
    env = {
      LLM_BASE_URL: await stub.start(),
      NOTIFY_TARGETS_FILE: file,
      NOTIFY_PUBLIC_BASE_URL: UI,
      NOTIFY_MAX_ATTEMPTS: '3',
      NOTIFY_BACKOFF_BASE_MS: '20',
      NOTIFY_BACKOFF_MAX_MS: '100',
      NOTIFY_TIMEOUT_MS: '1000',
      // Sweeps are notification-resume.e2e-spec's: one here would take over rows that file leaves.
      NOTIFY_SWEEP_INTERVAL_MS: '3600000',
      SLACK_URL: `${slackUrl}/services/T000/B000/XXXX`,
      FEISHU_URL: `${feishuUrl}/open-apis/bot/v2/hook/abc`,
      ...SECRETS,
    };
    app = await startApp(env);
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all(receivers.map((r) => r.stop()));
    await stub.stop();
  });
  beforeEach(() => {
    receivers.forEach((receiver) => (receiver.requests.length = 0));
    stub.requests.length = 0;
  });

  it('delivers a released report to every kind in its vendor format, retrying and classifying failures', async () => {
    const { sessionId, runId, text } = await chat(EVERY_TARGET, 'RELEASED', SUPPORTED);
    expect(text).toContain('"outcome":"SUCCESS"');
    const rows = await settledDeliveries(sessionId, runId, EVERY_TARGET.length);
    const runUrl = `${UI}/#/runs/${sessionId}/${runId}`;

    expect(rows['ops-webhook']).toMatchObject({
      status: 'DELIVERED',
      attempts: 2,
      last_http_status: 204,
      failure: null,
    });
    expect(rows['ops-slack']).toMatchObject({ status: 'DELIVERED', attempts: 2, last_http_status: 200 });
    expect(rows['ops-feishu']).toMatchObject({
      status: 'DELIVERED',
      attempts: 1,
      kind: 'feishu',
      trigger: 'chat',
    });
    expect(rows['ops-dingtalk']).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    expect(rows['ops-wecom']).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    // 200 with errcode ≠ 0: failed, and final (not retried).
    expect(rows['wecom-revoked']).toMatchObject({
      status: 'FAILED',
      failure: 'VENDOR_ERROR',
      attempts: 1,
      last_http_status: 200,
      vendor_code: 93000,
    });
    expect(rows['hook-rejects']).toMatchObject({
      status: 'FAILED',
      failure: 'REJECTED',
      attempts: 1,
      last_http_status: 400,
    });
    expect(rows['hook-hangs']).toMatchObject({
      status: 'FAILED',
      failure: 'TIMEOUT',
      attempts: 3,
      last_http_status: null,
    });

    // Generic webhook: the same Idempotency-Key on both attempts, a valid signature, the run's fields.
    const hooks = webhook.requests.filter((request) => request.path === '/in');
    expect(hooks).toHaveLength(2);
    expect(new Set(hooks.map((request) => request.headers['idempotency-key'])).size).toBe(1);
    for (const request of hooks) {
      const timestamp = String(request.headers['x-superbiz-timestamp']);
      const signature = createHmac('sha256', SECRETS.HOOK_SECRET)
        .update(`${timestamp}.${request.body}`)
        .digest('hex');
      expect(request.headers['x-superbiz-signature']).toBe(`sha256=${signature}`);
    }
    const hookBody = JSON.parse(hooks[1].body) as Record<string, unknown>;
    expect(hookBody).toMatchObject({
      run_id: runId,
      session_id: sessionId,
      trigger: 'chat',
      outcome: 'SUCCESS',
      released: true,
      reason: null,
      alert_labels: null,
      run_url: runUrl,
    });
    expect(String(hookBody.conclusion)).toContain('RELEASED');

    // Slack: header, mrkdwn section with the conclusion, the link to the run.
    const slackBody = JSON.parse(slack.requests[1].body) as { text: string; blocks: { type: string }[] };
    expect(slack.requests[1].path).toBe('/services/T000/B000/XXXX');
    expect(slackBody.blocks.map((block) => block.type)).toEqual(['header', 'section', 'context']);
    expect(JSON.stringify(slackBody.blocks)).toContain('RELEASED');
    expect(JSON.stringify(slackBody.blocks)).toContain(`<${runUrl}|Open the run>`);

    // Feishu: signed card; the signature checked as Feishu checks it.
    const feishuBody = JSON.parse(feishu.requests[0].body) as Record<string, unknown>;
    expect(feishuBody.msg_type).toBe('interactive');
    const feishuTimestamp = String(feishuBody.timestamp);
    expect(Math.abs(Number(feishuTimestamp) - Date.now() / 1000)).toBeLessThan(3600);
    expect(feishuBody.sign).toBe(
      createHmac('sha256', `${feishuTimestamp}\n${SECRETS.FEISHU_SECRET}`).update('').digest('base64'),
    );
    expect(JSON.stringify(feishuBody.card)).toContain('RELEASED');

    // DingTalk: markdown; access_token, timestamp (ms) and sign as query parameters.
    const ding = dingtalk.requests[0];
    expect(ding.path).toBe('/robot/send');
    expect(ding.query.get('access_token')).toBe(SECRETS.DING_TOKEN);
    const dingTimestamp = String(ding.query.get('timestamp'));
    expect(Math.abs(Number(dingTimestamp) - Date.now())).toBeLessThan(3_600_000);
    expect(ding.query.get('sign')).toBe(
      createHmac('sha256', SECRETS.DING_SECRET)
        .update(`${dingTimestamp}\n${SECRETS.DING_SECRET}`)
        .digest('base64'),
    );
    const dingBody = JSON.parse(ding.body) as { msgtype: string; markdown: { title: string; text: string } };
    expect(dingBody.msgtype).toBe('markdown');
    expect(dingBody.markdown.text).toContain('RELEASED');
    expect(dingBody.markdown.text).toContain(`[Open the run](${runUrl})`);

    // WeCom: markdown, the key in the URL.
    const good = wecom.requests.find(
      (request) => request.query.get('key') === SECRETS.WECOM_KEY,
    ) as ReceivedRequest;
    const wecomBody = JSON.parse(good.body) as { msgtype: string; markdown: { content: string } };
    expect(wecomBody.msgtype).toBe('markdown');
    expect(wecomBody.markdown.content).toContain('RELEASED');
    expect(Buffer.byteLength(wecomBody.markdown.content)).toBeLessThanOrEqual(4096);

    // Vendors without an idempotency header are not sent one.
    expect(slack.requests[0].headers['idempotency-key']).toBeUndefined();
  }, 120_000);

  it('a run whose draft is refused sends the fixed fallback text, never the draft', async () => {
    const { sessionId, runId, text } = await chat(['ops-webhook', 'ops-wecom'], 'UNRELEASED', UNSUPPORTED);
    expect(text).toContain('"outcome":"FALLBACK"');
    const rows = await settledDeliveries(sessionId, runId, 2);
    expect(rows['ops-webhook'].status).toBe('DELIVERED');
    expect(rows['ops-wecom'].status).toBe('DELIVERED');
    const delivered = webhook.requests.at(-1) as ReceivedRequest;
    expect(JSON.parse(delivered.body)).toMatchObject({
      run_id: runId,
      outcome: 'FALLBACK',
      released: false,
      conclusion: null,
      reason: 'SEMANTIC_UNSUPPORTED',
    });
    expect(JSON.parse(delivered.body).text).toMatch(/No verified conclusion was released/);
    // Refused by the semantic review (the draft passed the evidence and grounding checks first).
    expect(stub.requestsFor('semantic-guard')).toHaveLength(1);
    for (const request of receivers.flatMap((receiver) => receiver.requests)) {
      expect(request.body).not.toContain('UNRELEASED');
    }

    // The (run, target) rows are claims: notifying the same run again (a second replica, a repeated
    // seam call) sends nothing more.
    const before = receivers.map((receiver) => receiver.requests.length);
    const notifier = app.app.get(RunNotifier);
    notifier.notifyRunFinished({
      runId,
      sessionId,
      trigger: 'chat',
      targets: ['ops-webhook', 'ops-wecom'],
      alertLabels: null,
    });
    await notifier.settled();
    expect(receivers.map((receiver) => receiver.requests.length)).toEqual(before);
    expect(await settledDeliveries(sessionId, runId, 2)).toEqual(rows);
  }, 120_000);

  it('a chat that names an unknown target is refused with 400 before any run starts', async () => {
    const response = await postChat(
      app.baseUrl,
      { query: 'hello', notify: ['ops-webhook', 'no-such-target'] },
      { apiKey: KEY },
    );
    expect(response.status).toBe(400);
    expect(response.json?.message).toBe('notify names no configured notification target: no-such-target');
    expect(stub.requests).toHaveLength(0);
  });

  it('two replicas asked for the same run deliver it to each target once', async () => {
    const replica = await startApp(env);
    try {
      const { sessionId, runId } = await chat(['ops-feishu', 'ops-dingtalk'], 'RELEASED', SUPPORTED);
      // The second replica is handed the same run at once, racing the first one's own deliveries.
      const other = replica.app.get(RunNotifier);
      other.notifyRunFinished({
        runId,
        sessionId,
        trigger: 'chat',
        targets: ['ops-feishu', 'ops-dingtalk'],
        alertLabels: null,
      });
      await other.settled();
      const rows = await settledDeliveries(sessionId, runId, 2);
      expect(rows['ops-feishu']).toMatchObject({ status: 'DELIVERED', attempts: 1 });
      expect(rows['ops-dingtalk']).toMatchObject({ status: 'DELIVERED', attempts: 1 });
      expect(feishu.requests).toHaveLength(1);
      expect(dingtalk.requests).toHaveLength(1);
    } finally {
      await replica.close();
    }
  }, 120_000);

  it('a run that did not ask for notification is sent nowhere', async () => {
    const { sessionId, runId, text } = await chat(undefined, 'UNASKED', SUPPORTED);
    expect(text).toContain('"outcome":"SUCCESS"');
    expect((await traceOf(sessionId, runId)).notifications).toEqual([]);
    expect(receivers.flatMap((receiver) => receiver.requests)).toEqual([]);
  });
});
