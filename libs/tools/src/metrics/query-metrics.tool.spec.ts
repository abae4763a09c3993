import { parseMetricsToolsConfig } from './metrics-tools-config';
import type { QueryMetricsConfig } from './query-metrics.config';
import { queryMetricsTool, stepOf } from './query-metrics.tool';

const limits = {
  defaultLookbackMinutes: 60,
  maxLookbackMinutes: 360,
  minStepSeconds: 15,
  maxPointsPerSeries: 100,
} as QueryMetricsConfig;
const sources = parseMetricsToolsConfig(
  'harness:\n  metrics-tools:\n    data-sources:\n      prod:\n        url: http://p:9090\n        allowed-metrics: [up, \'rps{job="api"}\']\n',
  'metrics.yaml',
);
const tool = queryMetricsTool(sources, limits);

describe('queryMetricsTool arguments', () => {
  it.each<[string, Record<string, unknown>, string | null]>([
    ['a default range query', { data_source: 'prod', query: 'up' }, null],
    ['an instant query', { data_source: 'prod', query: 'up', type: 'instant' }, null],
    ['an unknown data source', { data_source: 'other', query: 'up' }, 'data_source'],
    [
      'a lookback past the bound',
      { data_source: 'prod', query: 'up', lookback_minutes: 361 },
      'lookback_minutes',
    ],
    ['a step below the minimum', { data_source: 'prod', query: 'up', step_seconds: 5 }, 'step_seconds'],
    [
      'too many points per series',
      { data_source: 'prod', query: 'up', lookback_minutes: 60, step_seconds: 30 },
      'step_seconds',
    ],
    ['an empty query', { data_source: 'prod', query: '  ' }, 'query'],
  ])('%s', (_name, args, badField) => {
    const parsed = tool.schema.safeParse(args);
    if (badField === null) expect(parsed.success).toBe(true);
    else expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain(badField);
  });

  it.each([
    [60, undefined, 37],
    [5, undefined, 15],
    [360, undefined, 219],
    [60, 60, 60],
  ])('a %i-minute window with step %s is queried every %i s', (lookback, step, expected) => {
    const args = tool.schema.parse({
      data_source: 'prod',
      query: 'up',
      lookback_minutes: lookback,
      step_seconds: step,
    });
    expect(stepOf(args as Parameters<typeof stepOf>[0], limits)).toBe(expected);
  });

  it('tells the agent the data sources and their allowlists, and names only configured sources in status', () => {
    expect(tool.description).toContain('data_source prod: metrics up, rps{job="api"}.');
    expect(tool.statusDetail?.({ data_source: 'prod' })).toBe('prod');
    expect(tool.statusDetail?.({ data_source: 'ROOT CAUSE FOUND' })).toBeUndefined();
  });
});

describe('queryMetricsTool evidence', () => {
  const series = [{ labels: { pool: 'order' }, samples: 240, min: 3, max: 10, mean: 5.3, last: 10 }];

  it('reads a verified range result as a METRIC reference with its query, window and series', () => {
    expect(
      tool.evidenceOf({
        evidence_status: 'EVIDENCE_FOUND',
        tool_call_id: 'call_1',
        truncated: false,
        scope: {
          data_source: 'prod',
          query: 'max(rps{job="api"})',
          type: 'range',
          start: 't0',
          end: 't1',
          step_seconds: 15,
        },
        series_count: 1,
        series,
      }),
    ).toEqual({
      source_type: 'METRIC',
      source: 'prod (PromQL)',
      scope: 'max(rps{job="api"}); t0 – t1, step 15s; 1 series',
      values: series,
      demo: false,
    });
  });

  it('reads an instant result as a METRIC reference at its time', () => {
    expect(
      tool.evidenceOf({
        evidence_status: 'NO_EVIDENCE',
        tool_call_id: 'call_2',
        truncated: false,
        scope: {
          data_source: 'prod',
          query: 'up',
          type: 'instant',
          start: null,
          end: 't1',
          step_seconds: null,
        },
        series_count: 0,
        series: [],
      }),
    ).toEqual({
      source_type: 'METRIC',
      source: 'prod (PromQL)',
      scope: 'up; at t1; 0 series',
      values: [],
      demo: false,
    });
  });
});
