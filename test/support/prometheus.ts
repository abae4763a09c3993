import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './free-port';

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
  execFileSync('bash', [installScript()], { stdio: 'inherit' });
  if (!hasBinaries()) throw new Error('prometheus or promtool is still not on the PATH after installing');
}

/**
 * A real Prometheus server on a free loopback port, as a host binary with its own data directory,
 * loaded before start with an incident's samples through promtool's OpenMetrics backfill. It scrapes
 * nothing: what it answers is exactly the backfilled history.
 */
export class PrometheusServer {
  private child: ChildProcess | null = null;
  private directory = '';
  /** The end of what the server wrote to stderr: why it stopped, when it stops during start-up. */
  private stderrTail = '';
  url = '';

  async start(families: MetricFamily[]): Promise<string> {
    ensurePrometheusBinaries();
    this.directory = mkdtempSync(join(tmpdir(), 'prometheus-e2e-'));
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
    const port = await freePort();
    this.child = spawn(
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
    this.stderrTail = '';
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    this.url = `http://127.0.0.1:${port}`;
    await this.waitReady();
    return this.url;
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if (this.child?.exitCode !== null || this.child.signalCode !== null)
        throw new Error(`prometheus exited during start-up: ${this.stderrTail.trim() || 'no output'}`);
      try {
        const response = await fetch(`${this.url}/-/ready`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((done) => setTimeout(done, 200));
    }
    throw new Error('prometheus did not become ready within 20 s');
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
