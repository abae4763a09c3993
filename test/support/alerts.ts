import { randomBytes } from 'node:crypto';
import { TEST_KEYS } from './test-env';

export interface WebhookAlert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
}

/** A fresh fingerprint, as Alertmanager's (16 hex digits). */
export const fingerprint = () => randomBytes(8).toString('hex');

/** An Alertmanager webhook body (version 4) for one alert group; `groupKey` keeps test files apart. */
export function alertmanagerBody(
  options: {
    groupKey?: string;
    status?: 'firing' | 'resolved';
    alerts?: WebhookAlert[];
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  } = {},
): Record<string, unknown> {
  const labels = options.labels ?? {
    alertname: 'PaymentTimeouts',
    severity: 'critical',
    service: 'order-service',
  };
  const annotations = options.annotations ?? {
    summary: 'Payment requests time out in order-service',
    description: 'p99 of /api/v1/payments above 5s for 5 minutes',
  };
  const status = options.status ?? 'firing';
  const alerts = options.alerts ?? [
    {
      status,
      labels: { ...labels, instance: 'order-1:8080' },
      annotations,
      startsAt: new Date(Date.now() - 120_000).toISOString(),
      endsAt: status === 'resolved' ? new Date().toISOString() : '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.example:9090/graph?g0.expr=up',
      fingerprint: 'a1b2c3d4e5f60718',
    },
  ];
  return {
    version: '4',
    groupKey: options.groupKey ?? `{}:{alertname="${labels.alertname}"}`,
    truncatedAlerts: 0,
    status,
    receiver: 'superbiz',
    groupLabels: { alertname: labels.alertname },
    commonLabels: labels,
    commonAnnotations: annotations,
    externalURL: 'http://alertmanager.example:9093',
    alerts,
  };
}

export interface AlertAnswer {
  status: number;
  body: { outcome?: string; session_id?: string; run_ids?: string[]; message?: unknown };
  headers: Headers;
}

export async function postAlert(
  baseUrl: string,
  body: unknown,
  key: string | null = TEST_KEYS.alertIngest,
): Promise<AlertAnswer> {
  const response = await fetch(`${baseUrl}/api/alerts/alertmanager`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as AlertAnswer['body'],
    headers: response.headers,
  };
}

/** GET a trace path with a trace_reader key; the parsed body. */
export async function readTrace(
  baseUrl: string,
  path: string,
  key: string = TEST_KEYS.traceReader,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Waits (polling the trace API, generous deadline) until the run has left RUNNING; its trace. */
export async function waitForRunEnd(
  baseUrl: string,
  sessionId: string,
  runId: string,
  deadlineMs = 90_000,
): Promise<Record<string, unknown>> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const trace = await readTrace(baseUrl, `/api/diagnosis/${sessionId}/trace?runId=${runId}`);
    const run = trace.body.run as { status?: string } | undefined;
    if (trace.status === 200 && run?.status !== 'RUNNING') return trace.body;
    if (Date.now() > until)
      throw new Error(`run ${runId} still ${run?.status ?? trace.status} after ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
