import { ChildProcess, spawn } from 'node:child_process';
import { createServer, Server } from 'node:net';
import { assertHoldsPort, boundPort, listeningPorts } from './bound-port';

/**
 * A node process that listens on `port` (0: one the system chooses), or bash running it as npm scripts
 * do; in its own process group, so the test kills the grandchild too.
 */
function listener(port: number, viaShell = false): ChildProcess {
  const script = `require('node:net').createServer().listen(${port}, '127.0.0.1'); setInterval(() => {}, 1000);`;
  const options = { detached: true, stdio: 'ignore' } as const;
  return viaShell
    ? spawn('bash', ['-c', `${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}; true`], options)
    : spawn(process.execPath, ['-e', script], options);
}

describe('bound-port', () => {
  const children: ChildProcess[] = [];
  const servers: Server[] = [];

  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    await Promise.all(servers.splice(0).map((server) => new Promise((r) => server.close(r))));
  });

  it('reads the port a process chose, also when a descendant listens (npm, bash)', async () => {
    for (const viaShell of [false, true]) {
      const child = listener(0, viaShell);
      children.push(child);
      const port = await boundPort(child, 'the listener', 10_000);
      expect(port).toBeGreaterThan(0);
      expect(listeningPorts(child.pid!)).toEqual([port]);
    }
  });

  it('reads one port from a dual-stack listener (IPv6 any address, also taking IPv4)', async () => {
    const child = spawn(
      process.execPath,
      ['-e', `require('node:net').createServer().listen(0, '::'); setInterval(() => {}, 1000);`],
      { detached: true, stdio: 'ignore' },
    );
    children.push(child);
    const port = await boundPort(child, 'the listener', 10_000);
    expect(listeningPorts(child.pid!)).toEqual([port]);
  });

  it('refuses a process that listens on two ports: which one is the service is not known', async () => {
    const script = `const net = require('node:net'); net.createServer().listen(0, '127.0.0.1', () => net.createServer().listen(0, '127.0.0.1')); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', script], { detached: true, stdio: 'ignore' });
    children.push(child);
    await expect(
      (async () => {
        // The second listen follows the first: ask until both are there, or the one port is read first.
        for (;;) {
          await boundPort(child, 'the listener', 10_000);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })(),
    ).rejects.toThrow(/^the listener listens on 2 ports \(\d+, \d+\)$/u);
  });

  it("does not count another process's port as the child's", async () => {
    const other = createServer();
    servers.push(other);
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const taken = (other.address() as { port: number }).port;
    // The child is told a port that is already held: it fails to bind, and the port still answers.
    const child = listener(taken);
    children.push(child);
    expect(() => assertHoldsPort(child.pid!, taken, 'the listener')).toThrow(
      `port ${taken} answered, but the listener does not hold it: another process took the port`,
    );
    await expect(boundPort(child, 'the listener', 10_000)).rejects.toThrow(
      /^the listener exited \(1\) before it listened on a port$/u,
    );
  });

  it('names a process that never listens', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      detached: true,
      stdio: 'ignore',
    });
    children.push(child);
    await expect(boundPort(child, 'the idler', 300)).rejects.toThrow(
      'the idler did not listen on a port within 300 ms',
    );
  });
});
