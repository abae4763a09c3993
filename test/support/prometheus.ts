import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { assertHoldsPort } from './bound-port';
import { freePort } from './free-port';
import { scaled } from './test-timeouts';

/** One sample line of an incident's metrics: labels and a value at a time. */
export interface MetricSample {
  labels: Record<string, string>;
  value: number;
  at: Date;
}

export interface MetricFamily {
  name: string;
  type: 'gauge' | 'counter' | 'unknown';
  samples: MetricSample[];
}

/** OpenMetrics text as `promtool tsdb create-blocks-from openmetrics` reads it (timestamps in seconds). */
export function openMetricsText(families: MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# TYPE ${family.name} ${family.type}`);
    for (const sample of [...family.samples].sort((a, b) => a.at.getTime() - b.at.getTime())) {
      const labels = Object.entries(sample.labels)
        .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
        .join(',');
      lines.push(`${family.name}{${labels}} ${sample.value} ${Math.floor(sample.at.getTime() / 1000)}`);
    }
  }
  lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}

function hasBinaries(): boolean {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
    execFileSync('prometheus', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** scripts/ensure-test-binaries.sh, found from the sources (test/support) and from the build (dist/test/support). */
function installScript(): string {
  for (let directory = __dirname; dirname(directory) !== directory; directory = dirname(directory)) {
    const script = join(directory, 'scripts', 'ensure-test-binaries.sh');
    if (existsSync(script)) return script;
  }
  throw new Error(`scripts/ensure-test-binaries.sh not found above ${__dirname}`);
}

/** Installs Debian's prometheus package (with promtool) when it is missing, as for HAProxy and Redis. */
export function ensurePrometheusBinaries(): void {
  if (hasBinaries()) return;
  execFileSync('bash', [installScript(), 'prometheus'], { stdio: 'inherit' });
  if (!hasBinaries()) throw new Error('prometheus or promtool is still not on the PATH after installing');
}

/**
 * A given port must be free: Prometheus logs a taken port and keeps running for a while, and whatever
 * holds the port could answer the readiness check in its place.
 */
function assertPortFree(port: number): Promise<void> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`cannot start prometheus on 127.0.0.1:${port}: ${error.code ?? error.message}`)),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolvePort()));
  });
}

/** How much of Prometheus' own stderr a start-up failure quotes. */
const STDERR_TAIL_CHARS = 2000;

/**
 * A real Prometheus server on a loopback port (a free one unless given), as a host binary with its own
 * data directory, loaded before start with an incident's samples through promtool's OpenMetrics
 * backfill. It scrapes nothing: what it answers is exactly the backfilled history. The e2e tests and
 * the demo (demo-prometheus-cli.ts) both run it.
 */
export class PrometheusServer {
  private child: ChildProcess | null = null;
  private directory = '';
  private stderrTail = '';
  url = '';
  /** Settles with the exit code when the server process ends, for whatever reason. */
  exited: Promise<number | null> = Promise.resolve(null);

  async start(families: MetricFamily[], options: { port?: number } = {}): Promise<string> {
    ensurePrometheusBinaries();
    this.directory = mkdtempSync(join(tmpdir(), 'prometheus-'));
    try {
      if (options.port !== undefined) await assertPortFree(options.port);
      await this.launch(families, options.port ?? (await freePort()));
    } catch (error) {
      // Nothing left behind: no process, no data directory.
      await this.stop();
      throw error;
    }
    return this.url;
  }

  private async launch(families: MetricFamily[], port: number): Promise<void> {
    const input = join(this.directory, 'incident.om');
    const data = join(this.directory, 'data');
    writeFileSync(input, openMetricsText(families));
    try {
      execFileSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', input, data], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (error) {
      // promtool says which line it refused: the incident's samples are ours to fix.
      const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
      throw new Error(`promtool could not backfill the samples: ${stderr || (error as Error).message}`);
    }
    const config = join(this.directory, 'prometheus.yml');
    writeFileSync(config, 'global:\n  scrape_interval: 1h\nscrape_configs: []\n');
    const child = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${data}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=30d',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.child = child;
    this.exited = new Promise((done) => child.once('exit', (code) => done(code)));
    // Kept so a failed start says why (a port in use, a bad flag) instead of only that it failed.
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
    });
    this.url = `http://127.0.0.1:${port}`;
    await this.waitReady();
    assertHoldsPort(child.pid!, port, 'prometheus');
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + scaled(20_000);
    while (Date.now() < deadline) {
      if (this.child?.exitCode !== null || this.child.signalCode !== null)
        throw new Error(
          `prometheus exited during start-up on ${this.url}: ${this.stderrTail.trim() || 'no output'}`,
        );
      try {
        // Bounded: a listener that accepts and never answers must not stall the start-up check.
        const response = await fetch(`${this.url}/-/ready`, { signal: AbortSignal.timeout(1000) });
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((done) => setTimeout(done, 200));
    }
    throw new Error(
      `prometheus on ${this.url} did not become ready within ${scaled(20_000) / 1000} s: ${this.stderrTail.trim()}`,
    );
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    if (this.directory) rmSync(this.directory, { recursive: true, force: true });
  }
}
