import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assertHoldsPort } from './bound-port';

const run = promisify(execFile);

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port whose cluster-bus port (port + 10000) is free as well. */
async function freeClusterPort(taken: number[]): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 25_000);
    if (taken.includes(port) || taken.includes(port + 10_000)) continue;
    if ((await portIsFree(port)) && (await portIsFree(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

/**
 * A real local Redis Cluster of three masters on loopback ports (redis-server --cluster-enabled),
 * persistence off, in a temporary directory; stop() shuts the nodes down and removes the directory.
 */
export class LocalRedisCluster {
  readonly ports: number[] = [];
  private dir = '';

  get nodes(): string {
    return this.ports.map((port) => `127.0.0.1:${port}`).join(',');
  }

  async start(masters = 3): Promise<string> {
    this.dir = await mkdtemp(join(tmpdir(), 'redis-cluster-'));
    for (let i = 0; i < masters; i += 1) {
      const port = await freeClusterPort(this.ports);
      // Recorded before start so stop() shuts down whatever did come up.
      this.ports.push(port);
      await run('redis-server', [
        '--cluster-enabled',
        'yes',
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--cluster-config-file',
        join(this.dir, `nodes-${port}.conf`),
        '--pidfile',
        join(this.dir, `redis-${port}.pid`),
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'yes',
      ]);
    }
    for (const port of this.ports) {
      await this.waitFor(port, 'PING', 'PONG');
      // Daemonized: the node is found by its pid file, not as a child of this process.
      const pid = Number((await readFile(join(this.dir, `redis-${port}.pid`), 'utf8')).trim());
      assertHoldsPort(pid, port, `the Redis Cluster node on ${port}`);
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...this.ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const port of this.ports) await this.waitFor(port, 'CLUSTER INFO', 'cluster_state:ok');
    return this.nodes;
  }

  /** Asks one node (redis-cli -p PORT ...). */
  async cli(port: number, ...args: string[]): Promise<string> {
    const { stdout } = await run('redis-cli', ['-p', String(port), ...args]);
    return stdout.trim();
  }

  async stop(): Promise<void> {
    for (const port of this.ports) {
      await run('redis-cli', ['-p', String(port), 'SHUTDOWN', 'NOSAVE']).catch(() => undefined);
    }
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  private async waitFor(port: number, command: string, expected: string): Promise<void> {
    for (let i = 0; i < 100; i += 1) {
      const reply = await this.cli(port, ...command.split(' ')).catch(() => '');
      if (reply.includes(expected)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`Redis Cluster node ${port} did not answer ${command} with ${expected}`);
  }
}
