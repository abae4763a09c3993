import { ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertHoldsPort, boundPort } from './bound-port';
import { freePort } from './free-port';
import { scaled } from './test-timeouts';

// Tests and benches run from the repository root (npm scripts), whether from sources or from dist/.
const ROOT = process.cwd();

async function waitUntil(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = scaled(30_000),
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** One service replica: the built server (`dist/`) as its own process on a loopback port. */
export class Replica {
  private child: ChildProcess | undefined;
  private stderr = '';
  port = 0;

  constructor(private readonly env: Record<string, string>) {}

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<string> {
    const child = spawn(process.execPath, [join(ROOT, 'dist/apps/server/src/main.js')], {
      cwd: ROOT,
      env: { ...process.env, ...this.env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-2000);
    });
    this.port = await boundPort(child, 'the replica', scaled(30_000)).catch((error: Error) => {
      throw new Error(`${error.message}: ${this.stderr}`);
    });
    await waitUntil(async () => {
      if (child.exitCode !== null) throw new Error(`replica exited: ${this.stderr}`);
      return (await fetch(`${this.baseUrl}/health`)).status === 200;
    }, `replica on port ${this.port}`);
    return this.baseUrl;
  }

  /** A crash: no shutdown hooks, no goodbye to MySQL or Redis. */
  /** SIGKILL, resolved once the process is gone (it writes nothing after that). */
  async kill9(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/**
 * HAProxy (Debian package, scripts/ensure-test-binaries.sh) on a loopback port, round-robin over the replicas,
 * with a /health check so a dead replica leaves the rotation within a second.
 */
export class HaproxyFrontend {
  private child: ChildProcess | undefined;
  private dir = '';
  private stderr = '';
  port = 0;

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(backends: number[]): Promise<string> {
    this.port = await freePort();
    this.dir = await mkdtemp(join(tmpdir(), 'haproxy-'));
    const config = join(this.dir, 'haproxy.cfg');
    await writeFile(config, haproxyConfig(this.port, backends));
    this.child = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-2000);
    });
    const child = this.child;
    await waitUntil(async () => {
      if (child.exitCode !== null) throw new Error(`haproxy exited: ${this.stderr}`);
      return (await fetch(`${this.baseUrl}/health`)).status === 200;
    }, 'haproxy');
    assertHoldsPort(child.pid!, this.port, 'haproxy');
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    }
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

/** The HAProxy example of docs/operations.md, with the ports filled in. */
export function haproxyConfig(port: number, backends: number[]): string {
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 120s',
    '  timeout server 120s',
    // A replica busy with load answers /health slowly; only a few missed checks in a row take it out.
    '  timeout check 2s',
    // A connection refused by a dead replica is sent to another one; a request already accepted is not.
    '  retries 2',
    '  option redispatch',
    'frontend diagnosis',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk GET /health',
    ...backends.map((backend, i) => `  server r${i + 1} 127.0.0.1:${backend} check inter 500 fall 3 rise 1`),
    '',
  ].join('\n');
}
