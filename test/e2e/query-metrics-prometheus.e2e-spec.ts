import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { InvocationStore } from '@app/harness';
import { startApp } from '../support/app-under-test';
import { draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { freePort } from '../support/free-port';
import { MetricFamily, PrometheusServer } from '../support/prometheus';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { scaled } from '../support/test-timeouts';

// The longest test or hook here needs up to 60 s on an idle machine; the suite's
// time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(60_000));

const MINUTE = 60_000;

/**
 * An incident whose cause is in the metrics only: order-service's HikariCP pool sat at 3 of 10 active
 * connections, then saturated at 10 twenty minutes ago. Plus a per-pod counter with more series than
 * the cap allows, for the series explosion.
 */
function incident(now: number): MetricFamily[] {
  const times: Date[] = [];
  for (let at = now - 60 * MINUTE; at <= now - MINUTE / 2; at += 15_000) times.push(new Date(at));
  const pool = { pool: 'order', service: 'order-service', instance: '10.0.0.7:8080' };
  return [
    {
      name: 'hikaricp_connections_active',
      type: 'gauge',
      samples: times.map((at) => ({ labels: pool, value: at.getTime() > now - 20 * MINUTE ? 10 : 3, at })),
    },
    {
      name: 'hikaricp_connections_max',
      type: 'gauge',
      samples: times.map((at) => ({ labels: pool, value: 10, at })),
    },
    {
      name: 'pod_requests_total',
      type: 'gauge',
      samples: Array.from({ length: 30 }, (_, pod) =>
        times.slice(-4).map((at) => ({ labels: { pod: `order-${pod}` }, value: pod, at })),
      ).flat(),
    },
  ];
}

/**
 * Issue 30: query_metrics against a real Prometheus (Debian's package, a host binary on a loopback
 * port, backfilled by promtool). A diagnosis cites the pool saturation through the Harness record,
 * EvidenceGuard and the released report; bad PromQL, a forbidden metric, a series explosion and an
 * unreachable data source each end as Tool ERRORs with their codes.
 */
describe('query_metrics on a real Prometheus', () => {
  const prometheus = new PrometheusServer();
  const stub = new StubLlmServer();
  let app: INestApplication;
  let baseUrl: string;
  let directory: string;

  beforeAll(async () => {
    const url = await prometheus.start(incident(Date.now()));
    directory = mkdtempSync(join(tmpdir(), 'metrics-tools-'));
    const config = join(directory, 'metrics-tools.yaml');
    writeFileSync(
      config,
      [
        'harness:',
        '  metrics-tools:',
        '    data-sources:',
        '      incident_prom:',
        `        url: ${url}`,
        '        allowed-metrics:',
        '          - hikaricp_connections_active{service="order-service"}',
        '          - hikaricp_connections_max',
        '          - pod_requests_total',
        '        redact-labels: [instance]',
        '      dead_prom:',
        `        url: http://127.0.0.1:${await freePort()}`,
        '        allowed-metrics: [up]',
        '',
      ].join('\n'),
    );
    const running = await startApp({
      LLM_BASE_URL: await stub.start(),
      METRICS_TOOLS_CONFIG: config,
      HARNESS_METRICS_MAX_SERIES: '20',
    });
    app = running.app;
    baseUrl = running.baseUrl;
  });
  afterAll(async () => {
    await app?.close();
    await stub.stop();
    await prometheus.stop();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('cites the saturation from Prometheus and turns each bad query into a coded Tool ERROR', async () => {
    const call = (id: string, data_source: string, query: string) => ({
      id,
      name: 'query_metrics',
      arguments: { data_source, query, lookback_minutes: 60 },
    });
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [
          {
            content: 'check the connection pool metrics',
            tool_calls: [
              call(
                'call_metrics_1',
                'incident_prom',
                'max by (service, instance) (hikaricp_connections_active{service="order-service"})',
              ),
              call(
                'call_metrics_bad',
                'incident_prom',
                'max(hikaricp_connections_active{service="order-service"}',
              ),
              call('call_metrics_forbidden', 'incident_prom', 'node_cpu_seconds_total'),
              call('call_metrics_many', 'incident_prom', 'pod_requests_total'),
              call('call_metrics_dead', 'dead_prom', 'up'),
            ],
          },
          { content: draftJson({ cite: ['call_metrics_1'] }) },
        ],
        'semantic-guard': [SUPPORTED],
      },
    });

    const response = await postChat(baseUrl, { query: 'order-123 payment times out, find out why' });
    const runId = String(response.events[0].data.run_id);
    const store = app.get(InvocationStore);

    const ready = await store.get(runId, 'call_metrics_1');
    expect(ready).toMatchObject({
      tool_name: 'query_metrics',
      status: 'READY',
      evidence_status: 'EVIDENCE_FOUND',
    });
    // The raw Prometheus answer is the canonical record; the agent sees only the projection.
    const raw = ready!.raw_response as { data: { resultType: string; result: { values: unknown[] }[] } };
    expect(raw.data.resultType).toBe('matrix');
    expect(raw.data.result[0].values.length).toBeGreaterThan(100);
    const series = (ready!.agent_result as unknown as { series: Record<string, unknown>[] }).series;
    expect(series).toHaveLength(1);
    expect(series[0]).toMatchObject({
      labels: { service: 'order-service', instance: '[REDACTED]' },
      min: 3,
      max: 10,
      last: 10,
      change_points: [expect.objectContaining({ from: 3, to: 10, delta: 7 })],
    });
    expect(JSON.stringify(ready!.agent_result)).not.toContain('"values"');

    for (const [id, code] of [
      ['call_metrics_bad', 'PROMQL_INVALID'],
      ['call_metrics_forbidden', 'METRIC_NOT_ALLOWED'],
      ['call_metrics_many', 'TOO_MANY_SERIES'],
      ['call_metrics_dead', 'METRICS_UNREACHABLE'],
    ]) {
      expect(await store.get(runId, id)).toMatchObject({
        status: 'ERROR',
        evidence_status: 'ERROR',
        error_code: code,
      });
    }
    const first = stub.requestsFor('diagnosis-agent')[0].body as {
      messages: { content: unknown }[];
      tools: unknown;
    };
    expect(JSON.stringify(first.messages[0].content)).toContain('query_metrics: PromQL');
    expect(JSON.stringify(first.tools)).toContain(
      'data_source incident_prom: metrics hikaricp_connections_active',
    );
    const observations = JSON.stringify(stub.requestsFor('diagnosis-agent')[1].body.messages);
    for (const code of ['PROMQL_INVALID', 'METRIC_NOT_ALLOWED', 'TOO_MANY_SERIES', 'METRICS_UNREACHABLE'])
      expect(observations).toContain(code);

    const content = response.events.at(-2)!.data as {
      content_type: string;
      payload: { references: Record<string, unknown>[] };
    };
    expect(content.content_type).toBe('DIAGNOSIS_REPORT');
    expect(content.payload.references).toEqual([
      expect.objectContaining({
        source_type: 'METRIC',
        source: 'incident_prom (PromQL)',
        scope: expect.stringContaining('hikaricp_connections_active'),
        values: [
          expect.objectContaining({ max: 10, change_points: [expect.objectContaining({ delta: 7 })] }),
        ],
      }),
    ]);
    expect(response.events.at(-1)!.data).toEqual({ outcome: 'SUCCESS' });
    expect(response.text).not.toContain('10.0.0.7');
  });
});
