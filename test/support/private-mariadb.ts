import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { assertHoldsPort } from './bound-port';
import { freePort } from './free-port';
import { scaled } from './test-timeouts';

export interface PrivateMariadb {
  host: string;
  port: number;
  stop(): Promise<void>;
}

const MARIADBD = '/usr/sbin/mariadbd';

/**
 * A throw-away MariaDB server of the machine's own binaries (scripts/ensure-services.sh installs them),
 * started with server options a test needs and the shared server must never get (for example
 * `--skip-character-set-client-handshake`). Loopback only; root without a password; removed on stop.
 */
export async function startPrivateMariadb(options: string[]): Promise<PrivateMariadb> {
  const dir = mkdtempSync(join(tmpdir(), 'private-mariadb-'));
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
  const install = spawnSync(
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${join(dir, 'data')}`,
      ...asRoot,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ],
    { encoding: 'utf8', timeout: scaled(60_000) },
  );
  if (install.status !== 0)
    throw new Error(`mariadb-install-db failed (${install.error?.message ?? install.stderr.slice(-300)})`);
  const port = await freePort();
  const server: ChildProcess = spawn(
    MARIADBD,
    [
      '--no-defaults',
      `--datadir=${join(dir, 'data')}`,
      ...asRoot,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(dir, 'mysqld.sock')}`,
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      '--skip-log-bin',
      '--innodb-buffer-pool-size=16M',
      ...options,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const stop = async () => {
    server.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      const connection = await createConnection({
        host: '127.0.0.1',
        port,
        user: 'root',
        connectTimeout: 500,
      });
      await connection.end();
      assertHoldsPort(server.pid!, port, 'the private MariaDB');
      return { host: '127.0.0.1', port, stop };
    } catch {
      if (server.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  await stop();
  throw new Error(`the private MariaDB (${MARIADBD} ${options.join(' ')}) did not start on port ${port}`);
}
