import { parseArgs } from 'node:util';
import { demoIncidentMetrics } from './demo-metrics';
import { PrometheusServer } from './prometheus';

/**
 * `node dist/test/support/demo-prometheus-cli.js --port N --now ISO`: the demo's Prometheus (Debian's
 * binary on 127.0.0.1:N) backfilled with the demo incident's metrics ending at `--now`, served until
 * SIGINT/SIGTERM, which stop Prometheus and remove its data. scripts/demo.sh passes the same instant as
 * METRICS_NOW, so query_metrics' window finds the incident however long the demo runs.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '4011' }, now: { type: 'string' } },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('--port must be 1..65535');
  const now = values.now === undefined ? Date.now() : Date.parse(values.now);
  if (Number.isNaN(now)) throw new Error(`--now must be an ISO 8601 date-time, not ${values.now}`);
  const server = new PrometheusServer();
  let stopping = false;
  const stop = (status: number) => {
    if (stopping) return;
    stopping = true;
    void server.stop().then(() => process.exit(status));
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  await server.start(demoIncidentMetrics(now), { port });
  process.stdout.write(
    `demo Prometheus listening on ${server.url} (incident metrics up to ${new Date(now).toISOString()})\n`,
  );
  void server.exited.then((code) => {
    if (stopping) return;
    process.stderr.write(`demo-prometheus: prometheus on ${server.url} exited (code ${String(code)})\n`);
    stop(1);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`demo-prometheus: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
