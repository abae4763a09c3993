import { projectMetrics, redactLabels, summarizeRange } from './metrics-result-projector';
import type { MetricsRawResponse } from './prometheus-client';

const limits = { maxProjectedSeries: 2, changePoints: 2, trendPoints: 4 };
const t0 = Date.parse('2026-12-03T10:00:00Z') / 1000;

describe('summarizeRange', () => {
  it('gives first/last/min/max/mean, the largest changes in time order and bucketed trend', () => {
    const values = ['3', '3', '4', '10', '10', '9', 'NaN', '2'];
    const summary = summarizeRange(
      values.map((value, i) => [t0 + i * 60, value]),
      { pool: 'order' },
      limits,
    );
    expect(summary).toEqual({
      labels: { pool: 'order' },
      samples: 8,
      first: 3,
      last: 2,
      min: 2,
      max: 10,
      mean: 5.85714,
      change_points: [
        { at: '2026-12-03T10:03:00.000Z', from: 4, to: 10, delta: 6 },
        { at: '2026-12-03T10:07:00.000Z', from: 9, to: 2, delta: -7 },
      ],
      trend: [3, 3.5, 10, 5.5],
      non_finite_samples: 1,
    });
  });

  it('has no figures for a series without finite samples', () => {
    expect(summarizeRange([[t0, 'NaN']], {}, limits)).toMatchObject({
      samples: 1,
      min: null,
      max: null,
      change_points: [],
      trend: [],
    });
  });
});

describe('redactLabels', () => {
  it('hides configured and sensitive-looking labels and scrubs values', () => {
    expect(
      redactLabels(
        { instance: '10.0.0.7:9100', user_email: 'a@b.example', note: 'mail ops@corp.example', job: 'api' },
        new Set(['instance']),
      ),
    ).toEqual({
      instance: '[REDACTED]',
      user_email: '[REDACTED]',
      note: 'mail [REDACTED_EMAIL]',
      job: 'api',
    });
  });
});

describe('projectMetrics', () => {
  const raw = (data: MetricsRawResponse['data']): MetricsRawResponse => ({
    data_source: 'prod',
    query: 'q',
    type: 'range',
    start: '2026-12-03T09:00:00.000Z',
    end: '2026-12-03T10:00:00.000Z',
    step_seconds: 60,
    data,
    warnings: [],
  });

  it('ranks range series by their highest value, caps them and keeps the scope', () => {
    const projection = projectMetrics(
      raw({
        resultType: 'matrix',
        result: [1, 9, 5].map((peak, i) => ({ metric: { pod: `p${i}` }, values: [[t0, String(peak)]] })),
      }),
      new Set(),
      limits,
    );
    expect(projection.evidenceStatus).toBe('EVIDENCE_FOUND');
    expect(projection.truncated).toBe(true);
    expect(projection.result).toMatchObject({
      scope: { data_source: 'prod', query: 'q', type: 'range', step_seconds: 60 },
      result_type: 'matrix',
      series_count: 3,
      returned_count: 2,
    });
    expect((projection.result.series as { labels: object }[]).map((s) => s.labels)).toEqual([
      { pod: 'p1' },
      { pod: 'p2' },
    ]);
    expect(JSON.stringify(projection.result)).not.toContain('values');
  });

  it('is NO_EVIDENCE for an empty result, and one value per series for an instant vector', () => {
    expect(projectMetrics(raw({ resultType: 'vector', result: [] }), new Set(), limits).evidenceStatus).toBe(
      'NO_EVIDENCE',
    );
    const instant = projectMetrics(
      raw({ resultType: 'vector', result: [{ metric: { pod: 'a' }, value: [t0, '0.25'] }] }),
      new Set(),
      limits,
    );
    expect(instant.result.series).toEqual([
      { labels: { pod: 'a' }, value: 0.25, at: '2026-12-03T10:00:00.000Z' },
    ]);
  });
});
