import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Connection, createConnection, RowDataPacket } from 'mysql2/promise';
import { MIGRATIONS } from '../../migrations';
import { TEST_MYSQL } from '../support/test-env';
import { boundPort } from '../support/bound-port';
import { scaled } from '../support/test-timeouts';

// The longest test or hook here needs up to 120 s on an idle machine; the suite's
// time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(120_000));

/** Each test migrates its own empty database, so the processes race exactly as replicas on first deploy. */
function freshDatabaseName(): string {
  return `superbiz_e2e_lock_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

interface Exit {
  status: number | null;
  stdout: string;
  stderr: string;
}

function runNode(script: string, args: string[], env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function migrate(database: string, env: Record<string, string> = {}): Promise<Exit> {
  return runNode('dist/apps/server/src/cli/migrate.js', ['run', '--create-database'], {
    DB_NAME: database,
    ...env,
  });
}

/** Polls /health until the server answers (the deadline only bounds a hung boot; nothing is timed). */
async function waitForHealth(baseUrl: string, child: ChildProcess, stderr: () => string): Promise<number> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}: ${stderr()}`);
    try {
      return (await fetch(`${baseUrl}/health`)).status;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`the server at ${baseUrl} did not answer: ${stderr()}`);
}

describe('migrations under the named lock', () => {
  let admin: Connection;
  const databases: string[] = [];

  beforeAll(async () => {
    admin = await createConnection(TEST_MYSQL);
  });

  afterAll(async () => {
    for (const database of databases) await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();
  });

  async function appliedMigrations(database: string): Promise<string[]> {
    const [rows] = await admin.query<RowDataPacket[]>(
      `SELECT name FROM \`${database}\`.migrations ORDER BY id`,
    );
    return rows.map((row) => String(row.name));
  }

  it('lets four parallel `migration:run` processes on one empty database all succeed, applying each migration once', async () => {
    const database = freshDatabaseName();
    databases.push(database);
    const results = await Promise.all([1, 2, 3, 4].map(() => migrate(database)));
    for (const result of results) {
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    }
    const counts = results.map((result) => Number(/^applied (\d+) migration/.exec(result.stdout)?.[1]));
    expect(counts.sort()).toEqual([0, 0, 0, MIGRATIONS.length]);
    expect(await appliedMigrations(database)).toEqual(MIGRATIONS.map((migration) => migration.name));
  });

  it('brings two servers starting together on one empty database both up, migrated once', async () => {
    const database = freshDatabaseName();
    databases.push(database);
    await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    const servers: { child: ChildProcess; stderr: string }[] = [];
    try {
      for (let started = 0; started < 2; started++) {
        const child = spawn(process.execPath, ['dist/apps/server/src/main.js'], {
          // The suite migrates its own database once and boots apps with DB_MIGRATIONS_RUN=false.
          env: {
            ...process.env,
            DB_NAME: database,
            DB_MIGRATIONS_RUN: 'true',
            HOST: '127.0.0.1',
            PORT: '0',
          },
        });
        const server = { child, stderr: '' };
        child.stderr?.on('data', (chunk: Buffer) => (server.stderr += chunk.toString()));
        servers.push(server);
      }
      const statuses = await Promise.all(
        servers.map(async (server) => {
          const port = await boundPort(server.child, 'the server').catch((error: Error) => {
            throw new Error(`${error.message}: ${server.stderr}`);
          });
          return waitForHealth(`http://127.0.0.1:${port}`, server.child, () => server.stderr);
        }),
      );
      expect(statuses).toEqual([200, 200]);
      expect(await appliedMigrations(database)).toEqual(MIGRATIONS.map((migration) => migration.name));
    } finally {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              if (server.child.exitCode !== null) return resolve();
              server.child.once('exit', () => resolve());
              server.child.kill('SIGTERM');
            }),
        ),
      );
    }
  });

  it('gives up with a clear error when another process holds the lock past the timeout', async () => {
    const database = freshDatabaseName();
    databases.push(database);
    const holder = await createConnection(TEST_MYSQL);
    try {
      const [[row]] = await holder.query<RowDataPacket[]>('SELECT GET_LOCK(?, 0) AS acquired', [
        `superbiz:migrations:${database}`,
      ]);
      expect(row.acquired).toBe(1);
      const result = await migrate(database, { DB_MIGRATIONS_LOCK_TIMEOUT_SECONDS: '1' });
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(
        `migration failed: could not take the migration lock "superbiz:migrations:${database}" within 1s: another process is migrating database ${database} (DB_MIGRATIONS_LOCK_TIMEOUT_SECONDS)\n`,
      );
      const [tables] = await admin.query<RowDataPacket[]>(`SHOW TABLES FROM \`${database}\``);
      expect(tables).toEqual([]);
    } finally {
      await holder.end();
    }
  });
});
