import type { ToolProjection } from '@app/harness';
import { isSensitiveField, REDACTED, redactText } from '../projection/redaction';
import type { MetricsRawResponse } from './prometheus-client';

export interface MetricsProjectionLimits {
  maxProjectedSeries: number;
  changePoints: number;
  trendPoints: number;
}

export interface ChangePoint {
  at: string;
  from: number;
  to: number;
  delta: number;
}

export interface RangeSeriesSummary {
  labels: Record<string, string>;
  samples: number;
  first: number | null;
  last: number | null;
  min: number | null;
  max: number | null;
  mean: number | null;
  /** The largest jumps between consecutive samples, in time order. */
  change_points: ChangePoint[];
  /** Bucket means over the window, oldest first: the shape of the series in a few numbers. */
  trend: number[];
  /** NaN / ±Inf samples, left out of the figures above. */
  non_finite_samples?: number;
}

export interface InstantSeriesSummary {
  labels: Record<string, string>;
  value: number | null;
  at: string;
}

/** Six significant digits: enough to read, never a float's noise. */
const round = (value: number) => Number(value.toPrecision(6));
const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString();

function numberOf(text: string): number | null {
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** Label values the agent may read: configured and sensitive-looking labels redacted, values scrubbed. */
export function redactLabels(labels: Record<string, string>, redacted: ReadonlySet<string>) {
  return Object.fromEntries(
    Object.entries(labels).map(([name, value]) => [
      name,
      redacted.has(name) || isSensitiveField(name) ? REDACTED : redactText(value),
    ]),
  );
}

function trendOf(values: number[], buckets: number): number[] {
  if (buckets <= 0 || values.length === 0) return [];
  if (values.length <= buckets) return values.map(round);
  return Array.from({ length: buckets }, (_, bucket) => {
    const from = Math.floor((bucket * values.length) / buckets);
    const to = Math.floor(((bucket + 1) * values.length) / buckets);
    const slice = values.slice(from, Math.max(to, from + 1));
    return round(slice.reduce((sum, value) => sum + value, 0) / slice.length);
  });
}

/** Per series min/max/mean/last, the largest changes with their times and a short trend. */
export function summarizeRange(
  samples: [number, string][],
  labels: Record<string, string>,
  limits: MetricsProjectionLimits,
): RangeSeriesSummary {
  const points = samples
    .map(([time, text]) => ({ time, value: numberOf(text) }))
    .filter((point): point is { time: number; value: number } => point.value !== null);
  const values = points.map((point) => point.value);
  // Rank the jumps as plain numbers; only the few kept become objects with times.
  const jumps: number[] = [];
  for (let i = 1; i < points.length; i += 1) if (points[i].value !== points[i - 1].value) jumps.push(i);
  const largest: ChangePoint[] = jumps
    .map((index) => ({ index, size: Math.abs(points[index].value - points[index - 1].value) }))
    .sort((a, b) => b.size - a.size || a.index - b.index)
    .slice(0, limits.changePoints)
    .sort((a, b) => a.index - b.index)
    .map(({ index }) => ({
      at: isoOf(points[index].time),
      from: round(points[index - 1].value),
      to: round(points[index].value),
      delta: round(points[index].value - points[index - 1].value),
    }));
  const summary: RangeSeriesSummary = {
    labels,
    samples: samples.length,
    first: values.length ? round(values[0]) : null,
    last: values.length ? round(values[values.length - 1]) : null,
    min: values.length ? round(values.reduce((a, b) => Math.min(a, b))) : null,
    max: values.length ? round(values.reduce((a, b) => Math.max(a, b))) : null,
    mean: values.length ? round(values.reduce((sum, value) => sum + value, 0) / values.length) : null,
    change_points: largest,
    trend: trendOf(values, limits.trendPoints),
  };
  if (points.length < samples.length) summary.non_finite_samples = samples.length - points.length;
  return summary;
}

/**
 * MetricsResultProjector: never the raw samples. A range result becomes per series its (redacted)
 * labels, sample count, first/last/min/max/mean, the largest change points with their times and a short
 * trend; an instant result one value per series. Series are ranked by their highest value and capped,
 * and the query scope is always returned so a partial result is not read as a global one.
 */
export function projectMetrics(
  raw: MetricsRawResponse,
  redacted: ReadonlySet<string>,
  limits: MetricsProjectionLimits,
): ToolProjection {
  const scope = {
    data_source: raw.data_source,
    query: raw.query,
    type: raw.type,
    start: raw.start,
    end: raw.end,
    step_seconds: raw.step_seconds,
  };
  let series: (RangeSeriesSummary | InstantSeriesSummary)[];
  let seriesCount: number;
  const data = raw.data;
  switch (data.resultType) {
    case 'matrix': {
      const all = data.result
        .map((item) => summarizeRange(item.values, redactLabels(item.metric, redacted), limits))
        .sort((a, b) => (b.max ?? -Infinity) - (a.max ?? -Infinity));
      seriesCount = all.length;
      series = all.slice(0, limits.maxProjectedSeries);
      break;
    }
    case 'vector': {
      const all = data.result
        .map((item) => ({
          labels: redactLabels(item.metric, redacted),
          value: numberOf(item.value[1]) === null ? null : round(numberOf(item.value[1])!),
          at: isoOf(item.value[0]),
        }))
        .sort((a, b) => (b.value ?? -Infinity) - (a.value ?? -Infinity));
      seriesCount = all.length;
      series = all.slice(0, limits.maxProjectedSeries);
      break;
    }
    case 'scalar':
    case 'string':
      seriesCount = 1;
      series = [
        {
          labels: {},
          value: numberOf(data.result[1]) === null ? null : round(numberOf(data.result[1])!),
          at: isoOf(data.result[0]),
        },
      ];
  }
  const hasData = series.some((item) => ('samples' in item ? item.samples > 0 : item.value !== null));
  return {
    evidenceStatus: hasData ? 'EVIDENCE_FOUND' : 'NO_EVIDENCE',
    result: {
      scope,
      result_type: data.resultType,
      series_count: seriesCount,
      returned_count: series.length,
      series,
      ...(raw.warnings.length > 0
        ? { warnings: raw.warnings.slice(0, 3).map((w) => redactText(w).slice(0, 200)) }
        : {}),
    },
    truncated: series.length < seriesCount,
  };
}
