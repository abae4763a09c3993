import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMetricsToolsConfig } from '@app/tools';
import { loadScenario } from './scenario';
import { metricFamiliesOf, metricsToolsYaml, parseScenarioMetrics } from './scenario-metrics';

const NOW = new Date('2026-11-20T10:30:00Z');
const minutesBefore = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);

const pool = (shape: unknown[], labels: Record<string, string> = { service: 'order-service' }) => ({
  metric: 'hikaricp_connections_active',
  labels,
  shape,
});

describe('metricFamiliesOf', () => {
  it('samples every interval on a grid ending exactly at now, switching level at each piece', () => {
    const metrics = parseScenarioMetrics(
      {
        interval_seconds: 60,
        series: [
          pool([
            { at: -5, value: 3 },
            { at: -2, value: 10 },
          ]),
        ],
      },
      'metrics.yaml',
    );
    const [family] = metricFamiliesOf(metrics, NOW);
    expect(family.name).toBe('hikaricp_connections_active');
    expect(family.type).toBe('gauge');
    expect(family.samples.map((sample) => [sample.at.toISOString(), sample.value])).toEqual([
      [minutesBefore(5).toISOString(), 3],
      [minutesBefore(4).toISOString(), 3],
      [minutesBefore(3).toISOString(), 3],
      [minutesBefore(2).toISOString(), 10],
      [minutesBefore(1).toISOString(), 10],
      [NOW.toISOString(), 10],
    ]);
    expect(family.samples.every((sample) => sample.labels.service === 'order-service')).toBe(true);
  });

  it('ramps linearly from the first to the second value over the piece, both ends exact', () => {
    const metrics = parseScenarioMetrics(
      {
        interval_seconds: 60,
        series: [
          pool([
            { at: -4, ramp: [10, 30] },
            { at: -1, value: 7 },
          ]),
        ],
      },
      'metrics.yaml',
    );
    expect(metricFamiliesOf(metrics, NOW)[0].samples.map((sample) => sample.value)).toEqual([
      10, 20, 30, 7, 7,
    ]);
  });

  it('starts a series at its first piece and keeps the grid of now for pieces off the grid', () => {
    const metrics = parseScenarioMetrics(
      { interval_seconds: 120, series: [pool([{ at: -5, value: 1 }])] },
      'metrics.yaml',
    );
    expect(metricFamiliesOf(metrics, NOW)[0].samples.map((sample) => sample.at)).toEqual([
      minutesBefore(4),
      minutesBefore(2),
      NOW,
    ]);
  });

  it('puts every series of one metric into one family, each with its own labels', () => {
    const metrics = parseScenarioMetrics(
      {
        interval_seconds: 300,
        series: [
          pool([{ at: -5, value: 1 }], { service: 'order-service' }),
          pool([{ at: -5, value: 2 }], { service: 'payment-service' }),
          { metric: 'restarts_total', type: 'counter', shape: [{ at: -5, value: 0 }] },
        ],
      },
      'metrics.yaml',
    );
    const families = metricFamiliesOf(metrics, NOW);
    expect(families.map((family) => [family.name, family.type, family.samples.length])).toEqual([
      ['hikaricp_connections_active', 'gauge', 4],
      ['restarts_total', 'counter', 2],
    ]);
    expect(new Set(families[0].samples.map((sample) => sample.labels.service))).toEqual(
      new Set(['order-service', 'payment-service']),
    );
  });
});

describe('parseScenarioMetrics', () => {
  it('applies the defaults: data source prod_prometheus, a sample every 15 s, nothing redacted', () => {
    expect(parseScenarioMetrics({ series: [pool([{ at: -1, value: 1 }])] }, 'metrics.yaml')).toMatchObject({
      data_source: 'prod_prometheus',
      interval_seconds: 15,
      redact_labels: [],
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['no series', { series: [] }, /series/],
    ['a piece after now', { series: [pool([{ at: 5, value: 1 }])] }, /series\.0\.shape\.0/],
    [
      'pieces out of time order',
      {
        series: [
          pool([
            { at: -1, value: 1 },
            { at: -5, value: 2 },
          ]),
        ],
      },
      /time order/,
    ],
    [
      'a piece with both a value and a ramp',
      { series: [pool([{ at: -1, value: 1, ramp: [1, 2] }])] },
      /shape/,
    ],
    [
      'a metric name Prometheus refuses',
      { series: [{ metric: 'cpu-usage', shape: [{ at: -1, value: 1 }] }] },
      /metric name/,
    ],
    ['a reserved label', { series: [pool([{ at: -1, value: 1 }], { __name__: 'x' })] }, /reserved/],
    ['an unknown key', { series: [pool([{ at: -1, value: 1 }])], step: 15 }, /step/],
    [
      'one metric both a gauge and a counter',
      {
        series: [
          pool([{ at: -1, value: 1 }]),
          { metric: 'hikaricp_connections_active', type: 'counter', shape: [{ at: -1, value: 1 }] },
        ],
      },
      /hikaricp_connections_active is both a gauge and a counter/,
    ],
  ])('refuses %s, naming the file', (_name, value, problem) => {
    expect(() => parseScenarioMetrics(value, 'pool-zh/metrics.yaml')).toThrow(/^pool-zh\/metrics\.yaml: /);
    expect(() => parseScenarioMetrics(value, 'pool-zh/metrics.yaml')).toThrow(problem);
  });
});

describe('metricsToolsYaml', () => {
  it('allowlists every metric the scenario ships, once, in a file the service itself accepts', () => {
    const metrics = parseScenarioMetrics(
      {
        data_source: 'incident_prom',
        redact_labels: ['instance'],
        series: [
          pool([{ at: -1, value: 1 }], { service: 'a' }),
          pool([{ at: -1, value: 1 }], { service: 'b' }),
          { metric: 'process_cpu_usage', shape: [{ at: -1, value: 0.5 }] },
        ],
      },
      'metrics.yaml',
    );
    const [source] = parseMetricsToolsConfig(
      metricsToolsYaml(metrics, 'http://127.0.0.1:9090'),
      'metrics-tools.yaml',
    );
    expect(source).toMatchObject({
      id: 'incident_prom',
      baseUrl: 'http://127.0.0.1:9090/',
      allowlistText: ['hikaricp_connections_active', 'process_cpu_usage'],
      redactLabels: new Set(['instance']),
    });
  });
});

describe('loadScenario with metrics', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'eval-scenario-'));
    mkdirSync(join(directory, 'pool'));
    writeFileSync(join(directory, 'pool', 'oracle.json'), '{"roles": {}}');
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const spec = (evidence: string) =>
    [
      "title: 'pool'",
      'failure_class: pool',
      "now: '2026-11-20T10:30:00Z'",
      "query: 'why'",
      'expect:',
      '  outcome: report',
      `  evidence: [${evidence}]`,
      '',
    ].join('\n');

  it('reads metrics.yaml beside scenario.yaml', () => {
    writeFileSync(join(directory, 'pool', 'scenario.yaml'), spec('METRIC'));
    writeFileSync(
      join(directory, 'pool', 'metrics.yaml'),
      'series:\n  - metric: hikaricp_connections_active\n    shape: [{ at: -10, value: 10 }]\n',
    );
    expect(loadScenario(directory, 'pool').metrics?.series[0].metric).toBe('hikaricp_connections_active');
  });

  it('refuses a scenario that expects METRIC evidence but ships no metrics, and names a broken metrics.yaml', () => {
    writeFileSync(join(directory, 'pool', 'scenario.yaml'), spec('METRIC'));
    expect(() => loadScenario(directory, 'pool')).toThrow(
      'pool/scenario.yaml: expect.evidence names METRIC but the scenario has no metrics.yaml',
    );
    writeFileSync(join(directory, 'pool', 'metrics.yaml'), 'series: []\n');
    expect(() => loadScenario(directory, 'pool')).toThrow(/^pool\/metrics\.yaml: series/);
  });

  it('has no metrics when it ships none', () => {
    writeFileSync(join(directory, 'pool', 'scenario.yaml'), spec('LOG'));
    expect(loadScenario(directory, 'pool').metrics).toBeNull();
  });
});
