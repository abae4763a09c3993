import { ChildProcess, spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { assertHoldsPort } from './bound-port';
import { freePort } from './free-port';

/**
 * A private Redis (redis-server, persistence off) on a loopback port, that a test may restart: what a
 * crash and restart without persistence does to the service's stores, without touching the shared Redis.
 */
export class LocalRedis {
  port = 0;
  private child: ChildProcess | null = null;

  async start(): Promise<number> {
    if (this.port === 0) this.port = await freePort();
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await this.waitUntil(true);
    assertHoldsPort(this.child.pid!, this.port, 'the local Redis');
    return this.port;
  }

  /** Killed (no shutdown, no save) and started again on the same port: empty. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await this.waitUntil(false);
  }

  private async waitUntil(listening: boolean): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if ((await this.accepts()) === listening) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the local Redis on ${this.port} did not ${listening ? 'start' : 'stop'}`);
  }

  private accepts(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = createConnection({ port: this.port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  }
}
