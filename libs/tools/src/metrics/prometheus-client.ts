import { z } from 'zod';
import { ToolFailure } from '@app/harness';
import { clip, redactText } from '../projection/redaction';
import type { MetricsDataSourceConfig } from './metrics-tools-config';
import type { QueryMetricsFailureCode } from './query-metrics.codes';
import { readCapped } from '../http/read-capped';

export interface MetricsRequest {
  query: string;
  /** Range queries have a start and a step; instant queries are evaluated at `end`. */
  start: Date | null;
  end: Date;
  stepSeconds: number | null;
}

export interface PrometheusLimits {
  maxSeries: number;
  maxSamples: number;
  maxResponseBytes: number;
  queryTimeoutMs: number;
}

const sample = z.tuple([z.number(), z.string()]);
const labels = z.record(z.string(), z.string());
const dataSchema = z.discriminatedUnion('resultType', [
  z.object({
    resultType: z.literal('matrix'),
    result: z.array(z.object({ metric: labels, values: z.array(sample) })),
  }),
  z.object({ resultType: z.literal('vector'), result: z.array(z.object({ metric: labels, value: sample })) }),
  z.object({ resultType: z.literal('scalar'), result: sample }),
  z.object({ resultType: z.literal('string'), result: sample }),
]);
const successSchema = z.object({
  status: z.literal('success'),
  data: dataSchema,
  warnings: z.array(z.string()).optional(),
});
const errorSchema = z.object({ status: z.literal('error'), errorType: z.string(), error: z.string() });

export type PrometheusData = z.infer<typeof dataSchema>;

/** What the Prometheus HTTP API answered, with the scope it was asked: the canonical raw response. */
export interface MetricsRawResponse {
  data_source: string;
  query: string;
  type: 'instant' | 'range';
  start: string | null;
  end: string;
  step_seconds: number | null;
  data: PrometheusData;
  warnings: string[];
}

const fail = (code: QueryMetricsFailureCode, message: string) => new ToolFailure(code, message);
const timeoutFailure = () => fail('METRICS_TIMEOUT', 'The metrics query did not finish in time; narrow it.');
const unreachable = () => fail('METRICS_UNREACHABLE', 'The metrics data source is unreachable.');

/**
 * An HTTP error whose body is not a Prometheus error: the class of its status (an error page from the
 * server or a proxy in front of it), never "unreachable", since something did answer.
 */
function httpStatusFailure(status: number): ToolFailure<QueryMetricsFailureCode> {
  if (status >= 400 && status < 500)
    return fail('METRICS_HTTP_4XX', `The metrics data source refused the request (HTTP ${status}).`);
  if (status >= 500 && status < 600)
    return fail('METRICS_HTTP_5XX', `The metrics data source failed (HTTP ${status}).`);
  return fail('METRICS_BAD_RESPONSE', 'The metrics data source answered in an unexpected format.');
}

/** The Prometheus error types as stable Tool ERROR codes; the server's wording only for query errors. */
function failureOf(errorType: string, error: string): ToolFailure<QueryMetricsFailureCode> {
  switch (errorType) {
    case 'bad_data':
      return fail(
        'PROMQL_INVALID',
        `The data source refused the query: ${clip(redactText(error.replace(/^invalid parameter "query": /, '')), 200).text}`,
      );
    case 'timeout':
    case 'canceled':
      return timeoutFailure();
    case 'execution':
      return /too many samples/i.test(error)
        ? fail(
            'TOO_MANY_SAMPLES',
            'The query would load too many samples; narrow the selector or the window.',
          )
        : fail('METRICS_QUERY_FAILED', 'The data source failed to run the query.');
    default:
      return fail('METRICS_QUERY_FAILED', 'The data source failed to run the query.');
  }
}

function countSamples(data: PrometheusData): { series: number; samples: number } {
  switch (data.resultType) {
    case 'matrix':
      return {
        series: data.result.length,
        samples: data.result.reduce((sum, series) => sum + series.values.length, 0),
      };
    case 'vector':
      return { series: data.result.length, samples: data.result.length };
    case 'scalar':
    case 'string':
      return { series: 1, samples: 1 };
  }
}

/**
 * One query against a Prometheus-compatible HTTP API (`/api/v1/query`, `/api/v1/query_range`): the
 * server's own timeout and series limit are asked for, the client aborts at the same timeout or when
 * the run stops, the body is read under a byte cap, and the series and sample caps are checked before
 * anything is returned. No retries: only the Harness retry matrix retries.
 */
export async function queryPrometheus(
  source: MetricsDataSourceConfig,
  request: MetricsRequest,
  limits: PrometheusLimits,
  signal: AbortSignal,
): Promise<MetricsRawResponse> {
  const range = request.start !== null && request.stepSeconds !== null;
  const form = new URLSearchParams({ query: request.query, timeout: `${limits.queryTimeoutMs}ms` });
  // Servers that know `limit` stop at one series past the cap; older ones ignore it.
  form.set('limit', String(limits.maxSeries + 1));
  if (range) {
    form.set('start', String(request.start!.getTime() / 1000));
    form.set('end', String(request.end.getTime() / 1000));
    form.set('step', String(request.stepSeconds));
  } else form.set('time', String(request.end.getTime() / 1000));

  const timeout = AbortSignal.timeout(limits.queryTimeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  const stopped = () => {
    if (signal.aborted) return signal.reason as unknown;
    return timeout.aborted ? timeoutFailure() : unreachable();
  };
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (source.bearerToken) headers.authorization = `Bearer ${source.bearerToken}`;

  let response: Response;
  let body: string | null;
  try {
    response = await fetch(new URL(range ? 'api/v1/query_range' : 'api/v1/query', source.baseUrl), {
      method: 'POST',
      headers,
      body: form,
      signal: combined,
      redirect: 'error',
    });
    body = await readCapped(response, limits.maxResponseBytes);
  } catch {
    throw stopped();
  }
  if (body === null) {
    if (!response.ok) throw httpStatusFailure(response.status);
    throw fail(
      'METRICS_RESULT_TOO_LARGE',
      'The metrics result is too large; aggregate or narrow the selector.',
    );
  }

  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw response.ok
      ? fail('METRICS_BAD_RESPONSE', 'The metrics data source answered in an unexpected format.')
      : httpStatusFailure(response.status);
  }
  const error = errorSchema.safeParse(json);
  if (error.success) throw failureOf(error.data.errorType, error.data.error);
  if (!response.ok) throw httpStatusFailure(response.status);
  const parsed = successSchema.safeParse(json);
  if (!parsed.success)
    throw fail('METRICS_BAD_RESPONSE', 'The metrics data source answered in an unexpected format.');

  const { series, samples } = countSamples(parsed.data.data);
  if (series > limits.maxSeries)
    throw fail(
      'TOO_MANY_SERIES',
      `The query returned more than ${limits.maxSeries} series; aggregate (sum by …) or add label matchers.`,
    );
  if (samples > limits.maxSamples)
    throw fail(
      'TOO_MANY_SAMPLES',
      `The query returned more than ${limits.maxSamples} samples; use a larger step or a shorter window.`,
    );
  return {
    data_source: source.id,
    query: request.query,
    type: range ? 'range' : 'instant',
    start: range ? request.start!.toISOString() : null,
    end: request.end.toISOString(),
    step_seconds: range ? request.stepSeconds : null,
    data: parsed.data.data,
    warnings: parsed.data.warnings ?? [],
  };
}
