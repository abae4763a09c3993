import { spawnSync } from 'node:child_process';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RunningApp, startApp, useStubbedApp } from '../support/app-under-test';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { Exposition } from '../support/prometheus-exposition';
import { ensurePrometheusBinaries } from '../support/prometheus';
import { postChat } from '../support/sse-client';
import type { StubReply } from '../support/stub-llm/stub-script';
import { TEST_KEYS, TEST_MYSQL } from '../support/test-env';

async function scrapeText(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${TEST_KEYS.metrics}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain;/);
  expect(response.headers.get('content-type')).toContain('version=0.0.4');
  return response.text();
}

async function scrape(baseUrl: string): Promise<Exposition> {
  return new Exposition(await scrapeText(baseUrl));
}

/** A reply with the token usage the provider reports for it. */
const withUsage = (reply: StubReply, prompt: number, completion: number): StubReply => ({
  ...reply,
  usage: { prompt_tokens: prompt, completion_tokens: completion },
});

describe('GET /metrics: protection', () => {
  let running: RunningApp;

  beforeAll(async () => {
    // One request per window for everything else: a scraper must never be counted against it.
    running = await startApp({ THROTTLE_LIMIT: '1' });
  });

  afterAll(async () => {
    await running?.close();
  });

  it('answers 401 without a key, 401 with a wrong one, 403 with a key lacking metrics_read: never a 5xx', async () => {
    const without = await fetch(`${running.baseUrl}/metrics`);
    expect(without.status).toBe(401);
    expect(await without.json()).toMatchObject({ statusCode: 401 });
    const wrong = await fetch(`${running.baseUrl}/metrics`, {
      headers: { authorization: 'Bearer not-a-configured-key-at-all' },
    });
    expect(wrong.status).toBe(401);
    const chatOnly = await fetch(`${running.baseUrl}/metrics`, { headers: { 'x-api-key': TEST_KEYS.chat } });
    expect(chatOnly.status).toBe(403);
    expect(await chatOnly.text()).not.toMatch(/superbiz_|process_cpu/);
  });

  it('serves process metrics, event-loop lag percentiles included, and the service metrics with the key', async () => {
    const metrics = await scrape(running.baseUrl);
    expect(metrics.type('process_cpu_seconds_total')).toBe('COUNTER');
    expect(metrics.type('nodejs_eventloop_lag_p99_seconds')).toBe('GAUGE');
    expect(metrics.type('nodejs_heap_size_used_bytes')).toBe('GAUGE');
    expect(metrics.type('superbiz_runs_finished_total')).toBe('COUNTER');
    expect(metrics.type('superbiz_run_duration_seconds')).toBe('HISTOGRAM');
    // Series exist at 0 before anything happened: alert expressions work from the start.
    expect(metrics.value('superbiz_alert_investigations_started_total')).toBe(0);
    expect(
      metrics.value('superbiz_notifications_failed_total', { target_kind: 'wecom', reason: 'TIMEOUT' }),
    ).toBe(0);
    expect(metrics.value('superbiz_tool_calls_total', { tool: 'query_logs', result: 'TOOL_TIMEOUT' })).toBe(
      0,
    );
  });

  it("passes promtool's exposition and naming checks (the service's own metrics)", async () => {
    ensurePrometheusBinaries();
    const own = (await scrapeText(running.baseUrl))
      .split('\n')
      .filter((line) => /^(# (HELP|TYPE) )?superbiz_/.test(line))
      .join('\n');
    expect(own).toContain('# TYPE superbiz_runs_finished_total counter');
    const check = spawnSync('promtool', ['check', 'metrics'], { input: `${own}\n`, encoding: 'utf8' });
    expect({ status: check.status, problems: `${check.stdout}${check.stderr}`.trim() }).toEqual({
      status: 0,
      problems: '',
    });
  });

  it('is never throttled, so a scraper cannot use up the clients’ rate limit', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i += 1) {
      statuses.push(
        (
          await fetch(`${running.baseUrl}/metrics`, {
            headers: { authorization: `Bearer ${TEST_KEYS.metrics}` },
          })
        ).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200]);
    expect((await fetch(`${running.baseUrl}/health`)).status).toBe(200);
  });
});

describe('GET /metrics: what runs count', () => {
  const suite = useStubbedApp();
  const { stub } = suite;

  /** Tokens per role of these runs, as their trace (agent_step rows) holds them. */
  async function tracedTokens(
    runIds: string[],
  ): Promise<Map<string, { prompt: number; completion: number }>> {
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      const [rows] = await connection.query<RowDataPacket[]>(
        `SELECT role, SUM(input_tokens) AS prompt, SUM(output_tokens) AS completion, COUNT(*) AS calls
           FROM agent_step WHERE run_id IN (?) GROUP BY role`,
        [runIds],
      );
      return new Map(
        rows.map((row) => [
          row.role as string,
          { prompt: Number(row.prompt), completion: Number(row.completion) },
        ]),
      );
    } finally {
      await connection.end();
    }
  }

  it('moves the run, model, token, tool and phase counts by exactly one diagnosis and one chitchat', async () => {
    const before = await scrape(suite.app.baseUrl);
    const [planTurn, draftTurn] = agentTurns(draftJson());
    stub.load({
      roles: {
        'intent-router': [
          withUsage({ content: 'DIAGNOSIS' }, 300, 2),
          withUsage({ content: 'SYSTEM_CHAT' }, 310, 3),
        ],
        'diagnosis-agent': [withUsage(planTurn, 1200, 80), withUsage(draftTurn, 1900, 400)],
        'semantic-guard': [withUsage(SUPPORTED, 900, 20)],
        'system-chat': [withUsage({ content: 'I diagnose faults from verified evidence.' }, 150, 12)],
      },
    });
    const diagnosis = await postChat(suite.app.baseUrl, {
      query: 'order-123 payment times out, find out why',
    });
    expect(diagnosis.events.at(-1)!.data).toEqual({ outcome: 'SUCCESS' });
    const chitchat = await postChat(suite.app.baseUrl, { query: 'hello, what can you do?' });
    expect(chitchat.events.at(-1)!.data).toEqual({ outcome: 'SUCCESS' });
    const after = await scrape(suite.app.baseUrl);

    const delta = (name: string, labels: Record<string, string> = {}) =>
      after.value(name, labels) - before.value(name, labels);
    const totalDelta = (name: string) => after.total(name) - before.total(name);

    expect(delta('superbiz_runs_started_total')).toBe(2);
    expect(totalDelta('superbiz_runs_finished_total')).toBe(2);
    expect(
      delta('superbiz_runs_finished_total', { intent: 'DIAGNOSIS', outcome: 'SUCCESS', reason: 'NONE' }),
    ).toBe(1);
    expect(
      delta('superbiz_runs_finished_total', { intent: 'SYSTEM_CHAT', outcome: 'SUCCESS', reason: 'NONE' }),
    ).toBe(1);
    const runs = (intent: string) =>
      after.histogram('superbiz_run_duration_seconds', { intent, outcome: 'SUCCESS' }).count -
      before.histogram('superbiz_run_duration_seconds', { intent, outcome: 'SUCCESS' }).count;
    expect([runs('DIAGNOSIS'), runs('SYSTEM_CHAT')]).toEqual([1, 1]);

    // Model calls: two routings, the agent's two turns, one semantic review, one chitchat reply.
    expect(totalDelta('superbiz_model_calls_total')).toBe(6);
    for (const [role, calls] of [
      ['intent-router', 2],
      ['diagnosis-agent', 2],
      ['semantic-guard', 1],
      ['system-chat', 1],
    ] as const) {
      expect(delta('superbiz_model_calls_total', { role, result: 'OK' })).toBe(calls);
    }

    // Tokens: the provider's counts per role, exactly, and what the trace recorded for these runs.
    const expected = {
      'intent-router': { prompt: 610, completion: 5 },
      'diagnosis-agent': { prompt: 3100, completion: 480 },
      'semantic-guard': { prompt: 900, completion: 20 },
      'system-chat': { prompt: 150, completion: 12 },
    };
    const traced = await tracedTokens(
      [diagnosis, chitchat].map((response) => String(response.events[0].data.run_id)),
    );
    for (const [role, tokens] of Object.entries(expected)) {
      const counted = {
        prompt: delta('superbiz_model_tokens_total', { role, kind: 'prompt' }),
        completion: delta('superbiz_model_tokens_total', { role, kind: 'completion' }),
      };
      expect({ role, ...counted }).toEqual({ role, ...tokens });
      expect({ role, ...traced.get(role) }).toEqual({ role, ...tokens });
    }
    expect(totalDelta('superbiz_model_tokens_total')).toBe(3100 + 480 + 610 + 5 + 900 + 20 + 150 + 12);

    // Tools: the one log query, with evidence.
    expect(totalDelta('superbiz_tool_calls_total')).toBe(1);
    expect(delta('superbiz_tool_calls_total', { tool: 'query_logs', result: 'EVIDENCE_FOUND' })).toBe(1);
    const toolDurations =
      after.histogram('superbiz_tool_call_duration_seconds', { tool: 'query_logs' }).count -
      before.histogram('superbiz_tool_call_duration_seconds', { tool: 'query_logs' }).count;
    expect(toolDurations).toBe(1);

    // Phases: each run routed and answered; only the diagnosis called a tool and was reviewed.
    const phaseDelta = (phase: string) =>
      after.histogram('superbiz_run_phase_duration_seconds', { phase }).count -
      before.histogram('superbiz_run_phase_duration_seconds', { phase }).count;
    expect(
      Object.fromEntries(['ROUTING', 'AGENT', 'TOOL', 'SEMANTIC'].map((phase) => [phase, phaseDelta(phase)])),
    ).toEqual({
      ROUTING: 2,
      AGENT: 2,
      TOOL: 1,
      SEMANTIC: 1,
    });

    // Both slots are free again; nothing was refused.
    expect(after.value('superbiz_capacity_runs_running')).toBe(0);
    expect(after.value('superbiz_capacity_runs_queued')).toBe(0);
    expect(totalDelta('superbiz_capacity_rejections_total')).toBe(0);
    // No label value outside its closed set.
    for (const family of [
      'superbiz_model_calls_total',
      'superbiz_tool_calls_total',
      'superbiz_runs_finished_total',
    ]) {
      expect(after.series(family).filter((series) => Object.values(series.labels).includes('OTHER'))).toEqual(
        [],
      );
    }
  });
});
