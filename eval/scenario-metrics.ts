import { stringify } from 'yaml';
import { z } from 'zod';
import type { MetricFamily, MetricSample } from '../test/support/prometheus';

const metricName = z.string().regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'must be a Prometheus metric name');
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const labelName = z.string().regex(LABEL_NAME, 'must be a Prometheus label name');
/** Checked key by key, so a bad label is named (a record's own key check only says "Invalid key"). */
const labels = z.record(z.string(), z.string()).superRefine((record, context) => {
  for (const name of Object.keys(record)) {
    if (!LABEL_NAME.test(name))
      context.addIssue({ code: 'custom', path: [name], message: 'must be a Prometheus label name' });
    else if (name.startsWith('__'))
      context.addIssue({ code: 'custom', path: [name], message: 'names starting with __ are reserved' });
  }
});
/** Minutes relative to the scenario's `now`: -60 is an hour before it. */
const minutesBeforeNow = z.number().int().min(-10_080).max(0);

/** One piece of a series' shape: it runs from its `at` until the next piece's `at` (the last until now). */
const segmentSchema = z.union([
  z.strictObject({ at: minutesBeforeNow, value: z.number().finite() }),
  /** Climbs (or falls) linearly from the first to the second value over the piece's own samples. */
  z.strictObject({ at: minutesBeforeNow, ramp: z.tuple([z.number().finite(), z.number().finite()]) }),
]);

const seriesSchema = z.strictObject({
  metric: metricName,
  type: z.enum(['gauge', 'counter']).default('gauge'),
  labels: labels.default({}),
  shape: z
    .array(segmentSchema)
    .min(1)
    .refine(
      (segments) => segments.every((segment, index) => index === 0 || segment.at > segments[index - 1].at),
      'segments must be in time order with distinct `at`',
    ),
});

/**
 * `metrics.yaml` of a scenario: the incident's time series, generated relative to its `now` and loaded
 * into a real Prometheus for the run (docs/eval.md "Scenarios with metrics"). Every metric it names is allowlisted
 * for the agent on `data_source`.
 */
export const scenarioMetricsSchema = z.strictObject({
  /** The data_source id the agent passes to query_metrics. */
  data_source: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a plain identifier')
    .default('prod_prometheus'),
  /** One sample per series every this many seconds. */
  interval_seconds: z.number().int().min(1).max(3600).default(15),
  /** Labels whose values the agent never sees. */
  redact_labels: z.array(labelName).default([]),
  series: z.array(seriesSchema).min(1),
});
export type ScenarioMetrics = z.infer<typeof scenarioMetricsSchema>;

/** Validates a parsed `metrics.yaml`; a broken file names the scenario, the field and the problem. */
export function parseScenarioMetrics(value: unknown, origin: string): ScenarioMetrics {
  const parsed = scenarioMetricsSchema.safeParse(value);
  if (!parsed.success)
    throw new Error(
      `${origin}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  const types = new Map<string, string>();
  for (const series of parsed.data.series) {
    const known = types.get(series.metric);
    if (known && known !== series.type)
      throw new Error(`${origin}: ${series.metric} is both a ${known} and a ${series.type}`);
    types.set(series.metric, series.type);
  }
  return parsed.data;
}

type Segment = z.infer<typeof segmentSchema>;

/** The values of one piece's samples: its level, or a line from the ramp's first to its last value. */
function segmentValues(segment: Segment, count: number): number[] {
  if ('value' in segment) return Array.from({ length: count }, () => segment.value);
  const [from, to] = segment.ramp;
  return Array.from({ length: count }, (_, index) =>
    count === 1 || index === count - 1
      ? index === 0
        ? from
        : to
      : from + ((to - from) * index) / (count - 1),
  );
}

/**
 * The samples of every series on a grid ending exactly at `now` (every `interval_seconds`), so a range
 * query ending at `now` with a step that is a multiple of the interval reads the samples themselves. A
 * series starts at its first piece's `at`.
 */
export function metricFamiliesOf(metrics: ScenarioMetrics, now: Date): MetricFamily[] {
  const families = new Map<string, MetricFamily>();
  const interval = metrics.interval_seconds * 1000;
  for (const series of metrics.series) {
    const family = families.get(series.metric) ?? { name: series.metric, type: series.type, samples: [] };
    families.set(series.metric, family);
    series.shape.forEach((segment, index) => {
      const start = now.getTime() + segment.at * 60_000;
      const next = series.shape[index + 1];
      const end = next ? now.getTime() + next.at * 60_000 : now.getTime() + 1;
      const times: number[] = [];
      // Grid points counted back from now, so every series shares them whatever its pieces' starts.
      const first = now.getTime() - Math.floor((now.getTime() - start) / interval) * interval;
      for (let at = first; at < end; at += interval) times.push(at);
      const values = segmentValues(segment, times.length);
      family.samples.push(
        ...times.map((at, i): MetricSample => ({
          labels: series.labels,
          value: values[i],
          at: new Date(at),
        })),
      );
    });
  }
  return [...families.values()];
}

/** The metrics-tools allowlist file for a scenario's Prometheus: every metric the scenario ships. */
export function metricsToolsYaml(metrics: ScenarioMetrics, url: string): string {
  return stringify({
    harness: {
      'metrics-tools': {
        'data-sources': {
          [metrics.data_source]: {
            url,
            'allowed-metrics': [...new Set(metrics.series.map((series) => series.metric))].sort(),
            'redact-labels': metrics.redact_labels,
          },
        },
      },
    },
  });
}
