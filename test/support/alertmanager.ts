import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertHoldsPort } from './bound-port';
import { freePort } from './free-port';

/** Debian's Alertmanager binary (package prometheus-alertmanager). */
export const ALERTMANAGER_BINARY = 'prometheus-alertmanager';
const STDERR_TAIL_CHARS = 2000;

/** Fails, naming the fix, when the binary is absent: the alert-ingest spec runs a real Alertmanager or fails. */
export function assertAlertmanagerBinary(): void {
  try {
    execFileSync(ALERTMANAGER_BINARY, ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      `${ALERTMANAGER_BINARY} is not on the PATH: install Debian's package with ` +
        '`bash scripts/ensure-test-binaries.sh prometheus-alertmanager` (npm test runs it), then run this spec again',
    );
  }
}

export interface AlertmanagerOptions {
  /** The service's webhook URL and the alert_ingest key sent as `Authorization: Bearer`. */
  webhookUrl: string;
  bearerKey: string;
  groupWait?: string;
  groupInterval?: string;
}

/** The generated configuration: one route to the service's webhook, short group timers for tests. */
export function alertmanagerConfig(options: AlertmanagerOptions): string {
  return [
    'route:',
    '  receiver: superbiz',
    "  group_by: ['alertname']",
    `  group_wait: ${options.groupWait ?? '1s'}`,
    `  group_interval: ${options.groupInterval ?? '2s'}`,
    '  repeat_interval: 1h',
    'receivers:',
    '  - name: superbiz',
    '    webhook_configs:',
    `      - url: ${JSON.stringify(options.webhookUrl)}`,
    '        send_resolved: true',
    '        max_alerts: 20',
    '        http_config:',
    '          authorization:',
    '            type: Bearer',
    `            credentials: ${JSON.stringify(options.bearerKey)}`,
    '',
  ].join('\n');
}

/**
 * A real Alertmanager on a loopback port with a generated configuration and a temporary storage
 * directory, clustering off; never a system service. Stopped (and its directory removed) by stop().
 */
export class AlertmanagerServer {
  private child: ChildProcess | null = null;
  private directory = '';
  private stderrTail = '';
  url = '';

  async start(options: AlertmanagerOptions): Promise<string> {
    assertAlertmanagerBinary();
    this.directory = mkdtempSync(join(tmpdir(), 'alertmanager-'));
    try {
      const config = join(this.directory, 'alertmanager.yml');
      writeFileSync(config, alertmanagerConfig(options));
      const port = await freePort();
      const child = spawn(
        ALERTMANAGER_BINARY,
        [
          `--config.file=${config}`,
          `--storage.path=${join(this.directory, 'data')}`,
          `--web.listen-address=127.0.0.1:${port}`,
          // An empty address turns the gossip cluster off: no port beyond the loopback API.
          '--cluster.listen-address=',
          '--log.level=warn',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      this.child = child;
      child.stderr!.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
      });
      this.url = `http://127.0.0.1:${port}`;
      await this.waitReady();
      assertHoldsPort(child.pid!, port, 'alertmanager');
    } catch (error) {
      await this.stop();
      throw error;
    }
    return this.url;
  }

  /** Posts alerts to Alertmanager's API (/api/v2/alerts), as Prometheus does. */
  async fire(alerts: Record<string, unknown>[]): Promise<void> {
    const response = await fetch(`${this.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(alerts),
    });
    if (!response.ok)
      throw new Error(`alertmanager refused the alerts: ${response.status} ${await response.text()}`);
  }

  /** What Alertmanager itself logged (its warnings, e.g. a failed webhook delivery). */
  get stderr(): string {
    return this.stderrTail;
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (this.child?.exitCode !== null || this.child.signalCode !== null)
        throw new Error(
          `alertmanager exited during start-up on ${this.url}: ${this.stderrTail.trim() || 'no output'}`,
        );
      try {
        const response = await fetch(`${this.url}/-/ready`, { signal: AbortSignal.timeout(1000) });
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((done) => setTimeout(done, 200));
    }
    throw new Error(
      `alertmanager on ${this.url} did not become ready within 30 s: ${this.stderrTail.trim()}`,
    );
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    if (this.directory) rmSync(this.directory, { recursive: true, force: true });
  }
}
