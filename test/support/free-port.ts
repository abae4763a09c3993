import { createServer } from 'node:net';

/**
 * A loopback port free a moment ago, for a third-party server or container that must be told its port up
 * front (check it took it: assertHoldsPort), or as an address nothing listens on. Another process can
 * take it before it is used: a process of ours listens on port 0 instead (boundPort).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
