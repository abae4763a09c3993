import { z } from 'zod';
import { HarnessToolDefinition, ToolFailure } from '@app/harness';
import { argOf, asRecord } from '../projection/record-fields';
import { projectMetrics } from './metrics-result-projector';
import type { MetricsDataSourceConfig } from './metrics-tools-config';
import { MetricsRawResponse, queryPrometheus } from './prometheus-client';
import { checkPromql, MAX_PROMQL_LENGTH } from './promql-policy';
import type { QueryMetricsConfig } from './query-metrics.config';
import { QUERY_METRICS_FAILURE_CODES, QueryMetricsFailureCode } from './query-metrics.codes';

/** Range queries aim at about this many points per series unless the agent picks a step. */
const DEFAULT_POINTS = 120;

export function queryMetricsSchema(ids: [string, ...string[]], limits: QueryMetricsConfig) {
  return z
    .object({
      data_source: z.enum(ids).describe('Logical metrics data source id.'),
      query: z
        .string()
        .trim()
        .min(1)
        .max(MAX_PROMQL_LENGTH)
        .describe(
          'One PromQL expression over allowlisted metrics, e.g. max by (pod) (hikaricp_connections_active).',
        ),
      type: z
        .enum(['range', 'instant'])
        .default('range')
        .describe('range: how the value moved over the window (default); instant: the value now.'),
      lookback_minutes: z
        .number()
        .int()
        .min(1)
        .max(limits.maxLookbackMinutes)
        .default(limits.defaultLookbackMinutes)
        .describe(
          `Window ending now (default ${limits.defaultLookbackMinutes}, max ${limits.maxLookbackMinutes}); range queries only.`,
        ),
      step_seconds: z
        .number()
        .int()
        .min(limits.minStepSeconds)
        .max(limits.maxLookbackMinutes * 60)
        .optional()
        .describe(
          `Resolution of a range query in seconds (at least ${limits.minStepSeconds}); chosen for you if omitted.`,
        ),
    })
    .superRefine((args, context) => {
      if (args.type !== 'range' || args.step_seconds === undefined) return;
      if ((args.lookback_minutes * 60) / args.step_seconds + 1 > limits.maxPointsPerSeries)
        context.addIssue({
          code: 'custom',
          path: ['step_seconds'],
          message: `at most ${limits.maxPointsPerSeries} points per series`,
        });
    });
}
export type QueryMetricsArgs = z.infer<ReturnType<typeof queryMetricsSchema>>;

/** The step of a range query: the agent's, or one giving about DEFAULT_POINTS points within the caps. */
export function stepOf(args: QueryMetricsArgs, limits: QueryMetricsConfig): number {
  if (args.step_seconds !== undefined) return args.step_seconds;
  const window = args.lookback_minutes * 60;
  const points = Math.min(DEFAULT_POINTS, limits.maxPointsPerSeries - 1);
  return Math.max(limits.minStepSeconds, Math.ceil(window / points));
}

const DESCRIPTION = [
  'Query time-series metrics (PromQL over a Prometheus-compatible API) for saturation, error rates, latency and traffic',
  'that logs may not mention. Returns per series its labels, min/max/mean/last, the largest change points with their times',
  'and a short trend, never raw samples. Every selector must name an allowlisted metric; aggregate (sum/max by …) to keep',
  'the series count small. No @ modifier; ranges and offsets stay within the lookback.',
  '查询监控指标（PromQL），返回每条序列的统计值、最大变化点及时间。',
].join(' ');

function describeSources(sources: readonly MetricsDataSourceConfig[]): string {
  return sources
    .map((source) => {
      const listed = source.allowlistText.slice(0, 40).join(', ');
      const more = source.allowlistText.length > 40 ? ` (+${source.allowlistText.length - 40} more)` : '';
      return `data_source ${source.id}: metrics ${listed}${more}.`;
    })
    .join('\n');
}

/** Codes that mean the data source itself is in trouble: worth a log line, not only an observation. */
const SOURCE_TROUBLE = new Set([
  'METRICS_UNREACHABLE',
  'METRICS_HTTP_4XX',
  'METRICS_HTTP_5XX',
  'METRICS_BAD_RESPONSE',
  'METRICS_QUERY_FAILED',
  'METRICS_TIMEOUT',
]);

/** The query_metrics evidence tool: PromQL policy, then the Prometheus HTTP API, then the projector. */
export function queryMetricsTool(
  sources: readonly MetricsDataSourceConfig[],
  limits: QueryMetricsConfig,
  now: () => Date = () => limits.now ?? new Date(),
): HarnessToolDefinition<QueryMetricsArgs, MetricsRawResponse> {
  const byId = new Map(sources.map((source) => [source.id, source]));
  const ids = sources.map((source) => source.id) as [string, ...string[]];
  return {
    name: 'query_metrics',
    description: `${DESCRIPTION} lookback_minutes: default ${limits.defaultLookbackMinutes}, at most ${limits.maxLookbackMinutes}.\n${describeSources(sources)}`,
    schema: queryMetricsSchema(ids, limits),
    readOnly: true,
    failureCodes: QUERY_METRICS_FAILURE_CODES,
    countedList: 'series',
    async execute(args, signal, ctx) {
      const source = byId.get(args.data_source)!;
      const policy = checkPromql(args.query, source.allowlist, {
        maxLookbackSeconds: limits.maxLookbackMinutes * 60,
        minStepSeconds: limits.minStepSeconds,
      });
      if (!policy.allowed) throw new ToolFailure<QueryMetricsFailureCode>(policy.code, policy.message);
      // A replayed incident (METRICS_NOW) keeps its clock; otherwise an alert-started run's anchor, or now.
      const end = limits.now ?? ctx.timeAnchor ?? now();
      const range = args.type === 'range';
      try {
        return await queryPrometheus(
          source,
          {
            query: args.query,
            start: range ? new Date(end.getTime() - args.lookback_minutes * 60_000) : null,
            end,
            stepSeconds: range ? stepOf(args, limits) : null,
          },
          limits,
          signal,
        );
      } catch (error) {
        if (error instanceof ToolFailure && SOURCE_TROUBLE.has(error.code))
          ctx.logger('QueryMetrics').warn(`query_metrics: data source ${source.id} answered ${error.code}`);
        throw error;
      }
    },
    project: (raw) => projectMetrics(raw, byId.get(raw.data_source)?.redactLabels ?? new Set(), limits),
    summarizeArgs: (args) => ({
      data_source: args.data_source,
      type: args.type,
      lookback_minutes: args.lookback_minutes,
      query_chars: args.query.length,
    }),
    label: '监控指标 / metrics',
    statusDetail: (args) => {
      const source = argOf(args, 'data_source');
      return typeof source === 'string' && byId.has(source) ? source : undefined;
    },
    evidenceOf: (result) => {
      const scope = asRecord(result.scope);
      const window =
        scope.type === 'range'
          ? `${String(scope.start ?? '')} – ${String(scope.end ?? '')}, step ${String(scope.step_seconds ?? '')}s`
          : `at ${String(scope.end ?? '')}`;
      return {
        source_type: 'METRIC',
        source: `${String(scope.data_source ?? 'metrics')} (PromQL)`,
        scope: `${String(scope.query ?? '')}; ${window}; ${String(result.series_count ?? 0)} series`,
        values: result.series ?? [],
        demo: false,
      };
    },
  };
}
