import type { MetricFamily, MetricSample } from './prometheus';

const MINUTE = 60_000;
/** History before `now` that the demo's Prometheus holds: more than the largest lookback the demo uses. */
export const DEMO_METRICS_HOURS = 3;
/** The pool exhaustion spans the same last 30 minutes as the MOCK log source's HikariCP incident. */
export const DEMO_INCIDENT_MINUTES = 30;
const SCRAPE_INTERVAL_MS = 15_000;
/** Samples per two minutes: how long a value of the wobbling series holds. */
const HOLD = (2 * MINUTE) / SCRAPE_INTERVAL_MS;
/** Ordinary load, in an order that reads as noise rather than a ramp. */
const ORDER_ACTIVE = [12, 10, 13, 11, 14];
const PAYMENT_ACTIVE = [5, 4, 6];

/**
 * The demo incident as HikariCP metrics, deterministic so the scripted follow-up report
 * (demo/stub-llm-script.json) can state its figures: order-service's pool (max 50) runs 10–14 active
 * connections until the incident, then sits at 50 while the waiting threads climb from 15 to 26 and stay
 * there; payment-service's pool (max 20) stays at 4–6 active connections with none waiting, i.e. it is
 * not saturated. Values hold for two minutes at least, so a query's step never skips a stated extreme.
 */
export function demoIncidentMetrics(now: number): MetricFamily[] {
  const incidentStart = now - DEMO_INCIDENT_MINUTES * MINUTE;
  const times: Date[] = [];
  for (let at = now - DEMO_METRICS_HOURS * 60 * MINUTE; at <= now; at += SCRAPE_INTERVAL_MS) {
    times.push(new Date(at));
  }
  const labels = (service: string, instance: string) => ({ service, pool: 'HikariPool-1', instance });
  const order = labels('order-service', '10.0.3.17:8080');
  const payment = labels('payment-service', '10.0.4.21:8080');
  const series = (
    serviceLabels: Record<string, string>,
    value: (period: number, incidentMinute: number | null) => number,
  ): MetricSample[] =>
    times.map((at, index) => ({
      labels: serviceLabels,
      value: value(
        Math.floor(index / HOLD),
        at.getTime() >= incidentStart ? Math.floor((at.getTime() - incidentStart) / MINUTE) : null,
      ),
      at,
    }));
  return [
    {
      name: 'hikaricp_connections_active',
      type: 'gauge',
      samples: [
        ...series(order, (period, incidentMinute) =>
          incidentMinute === null ? ORDER_ACTIVE[period % 5] : 50,
        ),
        ...series(payment, (period) => PAYMENT_ACTIVE[period % 3]),
      ],
    },
    {
      name: 'hikaricp_connections_max',
      type: 'gauge',
      samples: [...series(order, () => 50), ...series(payment, () => 20)],
    },
    {
      name: 'hikaricp_connections_pending',
      type: 'gauge',
      samples: [
        ...series(order, (_, incidentMinute) =>
          incidentMinute === null ? 0 : Math.min(26, 15 + Math.floor(incidentMinute / 2)),
        ),
        ...series(payment, () => 0),
      ],
    },
  ];
}
