/** Why the PromQL policy refuses a query before it is sent. */
export const PROMQL_REJECTION_CODES = ['PROMQL_INVALID', 'PROMQL_NOT_ALLOWED', 'METRIC_NOT_ALLOWED'] as const;
export type PromqlRejectionCode = (typeof PROMQL_REJECTION_CODES)[number];

/**
 * The ToolFailure codes query_metrics may return to the agent, beside the boundary's own (TOOL_TIMEOUT, ...):
 * a closed set, so a failure with a code not listed here does not compile.
 */
export const QUERY_METRICS_FAILURE_CODES = [
  ...PROMQL_REJECTION_CODES,
  'METRICS_TIMEOUT',
  'METRICS_UNREACHABLE',
  'METRICS_HTTP_4XX',
  'METRICS_HTTP_5XX',
  'METRICS_QUERY_FAILED',
  'METRICS_BAD_RESPONSE',
  'METRICS_RESULT_TOO_LARGE',
  'TOO_MANY_SERIES',
  'TOO_MANY_SAMPLES',
] as const;
export type QueryMetricsFailureCode = (typeof QUERY_METRICS_FAILURE_CODES)[number];
