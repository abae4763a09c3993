import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, createConnection } from 'mysql2/promise';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { boundPort } from '../support/bound-port';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_MYSQL, TEST_REDIS } from '../support/test-env';

// Several CLI runs and a service boot as processes; a loaded machine needs the room.
jest.setTimeout(300_000);

/** The fenced block between `<!-- own-data:NAME:start -->` and `<!-- own-data:NAME:end -->` of the walkthrough page. */
function readmeBlock(name: string): string {
  const readme = readFileSync('docs/getting-started-own-data.md', 'utf8');
  const match = new RegExp(
    `<!-- own-data:${name}:start -->\\s*\`\`\`\\w+\\n([\\s\\S]*?)\`\`\`\\s*<!-- own-data:${name}:end -->`,
  ).exec(readme);
  if (!match) throw new Error(`docs/getting-started-own-data.md has no own-data:${name} block`);
  return match[1];
}

/** A JSON dump of the environment at the end of a bash script (only PATH and HOME given). */
function bashEnv(script: string, env: Record<string, string>): Record<string, string> {
  return JSON.parse(
    execFileSync(
      'bash',
      ['-c', `set -euo pipefail\n${script}\nnode -e "process.stdout.write(JSON.stringify(process.env))"`],
      { env, encoding: 'utf8' },
    ),
  ) as Record<string, string>;
}

/** What a block exported or changed, compared with a clean shell of the same `env`. */
function runBlock(block: string, env: Record<string, string>): Record<string, string> {
  const before = bashEnv('', env);
  const after = bashEnv(block, env);
  return Object.fromEntries(Object.entries(after).filter(([key, value]) => before[key] !== value));
}

/**
 * A bash script as a process, asynchronously: the stub LLM runs in this process and must keep answering
 * while the script's `npm run doctor` asks it.
 */
function bash(
  script: string,
  env: Record<string, string>,
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (status) => resolve({ status, output }));
  });
}

function listeningUrl(child: ChildProcess, output: { text: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output.text += chunk.toString('utf8');
      const match = /Listening on (http:\/\/[^\s"]+)/.exec(output.text);
      if (match) resolve(match[1]);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`service exited (${code}) before listening:\n${output.text}`)),
    );
  });
}

/** log4j/logback's `yyyy-MM-dd HH:mm:ss,SSS` in UTC. */
const log4j = (date: Date) => date.toISOString().replace('T', ' ').replace('.', ',').slice(0, 23);

describe('docs/getting-started-own-data.md, step by step as a user runs it', () => {
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const names = {
    businessDb: `own_shop_${suffix}`,
    reader: `own_reader_${suffix}`,
    serviceDb: `${process.env.E2E_SERVICE_DB}_own`,
  };
  const home = mkdtempSync(join(tmpdir(), 'own-data-home-'));
  const logsDir = join(home, 'logs');
  const runbookDir = join(home, 'runbooks');
  const allowlistFile = join(home, 'mysql-tools.local.yaml');
  const stub = new StubLlmServer();
  const providerKey = `sk-own-${randomBytes(8).toString('hex')}`;
  let mysql: Connection;
  let service: ChildProcess | undefined;

  beforeAll(async () => {
    mysql = await createConnection({ ...TEST_MYSQL, multipleStatements: true });
    await mysql.query(
      `CREATE DATABASE ${names.businessDb};
       CREATE TABLE ${names.businessDb}.shop_order (order_ref VARCHAR(32) PRIMARY KEY, state VARCHAR(16), amount DECIMAL(10,2), placed_at DATETIME);
       INSERT INTO ${names.businessDb}.shop_order VALUES ('order-123', 'PAY_TIMEOUT', 42.00, NOW());`,
    );
  });

  afterAll(async () => {
    if (service && service.exitCode === null) {
      const exited = new Promise((resolve) => service!.once('exit', resolve));
      process.kill(-service.pid!, 'SIGTERM');
      await exited;
    }
    await mysql.query(
      `DROP USER IF EXISTS '${names.reader}'@'%';
       DROP DATABASE IF EXISTS ${names.businessDb};
       DROP DATABASE IF EXISTS ${names.serviceDb};`,
    );
    await mysql.end();
    await stub.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('secrets once, SELECT-only account, allowlist, odd log formats, doctor, runbooks: a SUCCESS diagnosis citing FILE logs', async () => {
    const shell = { PATH: process.env.PATH!, HOME: home };

    // Step 2, twice: the second run generates nothing and changes nothing.
    const secrets = runBlock(readmeBlock('secrets'), shell);
    const envFile = join(home, '.config/superbiz/own-data.env');
    const firstFile = readFileSync(envFile, 'utf8');
    expect(runBlock(readmeBlock('secrets'), shell)).toEqual(secrets);
    expect(readFileSync(envFile, 'utf8')).toBe(firstFile);
    expect(secrets.AUDIT_ENCRYPTION_KEYS).toMatch(/^k1:[A-Za-z0-9+/]{43}=$/);
    const adminKey = /(?:^|,)chat\|trace_reader\|knowledge_admin=([0-9a-f]{48})(?:,|$)/.exec(
      secrets.API_KEYS,
    )?.[1];
    expect(adminKey).toBeDefined();
    expect(secrets.SHOP_MYSQL_PASSWORD).toMatch(/^[0-9a-f]{32}$/);
    // ... and the user puts the provider key into the file, as the walkthrough says.
    writeFileSync(envFile, firstFile.replace('sk-your-provider-key', providerKey));
    const loaded = runBlock(readmeBlock('secrets'), shell);
    expect(loaded.LLM_API_KEY).toBe(providerKey);

    // Step 3: the account, with this run's database and user names and the env file's password.
    const sql = readmeBlock('sql');
    expect(sql).toContain("'the SHOP_MYSQL_PASSWORD of the env file'");
    await mysql.query(
      sql
        .replaceAll('shop_db', names.businessDb)
        .replaceAll('superbiz_reader', names.reader)
        .replace('the SHOP_MYSQL_PASSWORD of the env file', loaded.SHOP_MYSQL_PASSWORD),
    );

    // Step 4: the allowlist file, at this run's path.
    writeFileSync(allowlistFile, readmeBlock('allowlist').replaceAll('shop_db', names.businessDb));

    // Step 5: logs as an exporter wrote them, with field names and formats nobody configured.
    mkdirSync(logsDir);
    const now = Date.now();
    writeFileSync(
      join(logsDir, 'application-order.jsonl'),
      Array.from({ length: 6 }, (_, i) =>
        JSON.stringify({
          ts: log4j(new Date(now - (10 + i) * 60_000)),
          lvl: 'E',
          svc: 'order-service',
          msg: `HikariPool-1 - Connection is not available, request timed out after 30000ms (req ${i})`,
        }),
      ).join('\n'),
    );
    writeFileSync(
      join(logsDir, 'database-order.jsonl'),
      JSON.stringify({ ts: String(now - 12 * 60_000), lvl: 'W', svc: 'order-db', msg: 'slow query 4.2 s' }),
    );
    writeFileSync(
      join(logsDir, 'access-gateway.jsonl'),
      JSON.stringify({
        time: Math.floor(now / 1000) - 600,
        level: 50,
        logger: 'gateway',
        log: 'POST /pay 504',
      }),
    );
    mkdirSync(runbookDir);
    writeFileSync(
      join(runbookDir, 'hikari-pool-exhausted.md'),
      '# HikariCP pool exhausted\n\nWhen connections time out after 30000ms, find the long transaction holding them.\n',
    );

    // Step 6: the settings, then what a user replaces with their own: provider, servers, paths, port.
    const settings = runBlock(readmeBlock('settings'), shell);
    const replaced = {
      LLM_BASE_URL: await stub.start(),
      DB_HOST: TEST_MYSQL.host,
      DB_PORT: String(TEST_MYSQL.port),
      DB_USER: TEST_MYSQL.user,
      DB_PASSWORD: TEST_MYSQL.password,
      DB_NAME: names.serviceDb,
      REDIS_HOST: TEST_REDIS.host,
      REDIS_PORT: String(TEST_REDIS.port),
      MYSQL_TOOLS_CONFIG: allowlistFile,
      SHOP_MYSQL_URL: `mysql://${TEST_MYSQL.host}:${TEST_MYSQL.port}/${names.businessDb}`,
      SHOP_MYSQL_USERNAME: names.reader,
      LOGS_JSONL_DIR: logsDir,
      RUNBOOK_DIR: runbookDir,
      // A port the system chooses: one picked free beforehand could be taken before the service binds it.
      PORT: '0',
    };
    for (const key of Object.keys(replaced)) expect({ ...settings, ...loaded }).toHaveProperty(key);
    expect(settings.DB_NAME).toBe('superbiz_own');
    expect(settings.LOG_BACKEND).toBe('jsonl');
    const env: Record<string, string> = { ...shell, ...loaded, ...settings, ...replaced };
    stub.load({
      api_key: providerKey,
      models: [env.LLM_MODEL],
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(
          draftJson({ text: 'payment timeouts come from HikariCP pool exhaustion' }),
        ),
        'semantic-guard': [SUPPORTED],
      },
    });

    // Step 7: migrate and doctor exactly as written (a FAIL would stop this bash), then npm start.
    const start = readmeBlock('start').trim().split('\n');
    expect(start.at(-1)).toBe('npm start');
    const run = await bash(start.slice(0, -1).join('\n'), env);
    const checked = run.output;
    expect({ status: run.status, checked }).toEqual({
      status: 0,
      checked: expect.stringContaining('doctor: no blocking problem'),
    });
    expect(checked).toMatch(/^OK {3}service database: .*_own on .*: reachable, every migration applied$/m);
    expect(checked).toMatch(
      /^OK {3}data source shop: .*: reachable, SELECT only, all 1 allowlisted table\(s\)/m,
    );
    for (const [file, topic, service, records] of [
      ['access-gateway\\.jsonl', 'ACCESS', 'gateway', 1],
      ['application-order\\.jsonl', 'APPLICATION', 'order-service', 6],
      ['database-order\\.jsonl', 'DATABASE', 'order-db', 1],
    ]) {
      expect(checked).toMatch(
        new RegExp(
          `^OK {3}logs: ${file}: json, topic ${topic} \\(rule\\), services ${service}, .*, ${records} records from ${records} lines, unreadable 0 \\(0%\\)$`,
          'm',
        ),
      );
    }
    expect(checked).toMatch(/^OK {3}llm: /m);
    expect(checked).toMatch(/^OK {3}redis: /m);
    expect(checked).toMatch(/^WARN knowledge base: the knowledge base is empty/m);
    expect(checked).toContain('doctor: no blocking problem');
    for (const secret of [providerKey, loaded.SHOP_MYSQL_PASSWORD, adminKey!])
      expect(checked).not.toContain(secret);

    service = spawn('bash', ['-c', 'exec npm start'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const output = { text: '' };
    const baseUrl = await listeningUrl(service, output);
    // The start-up line names the port the service really holds (npm start runs it as a grandchild);
    // the page's next steps address the service as $HOST:$PORT, as a user who chose the port does.
    env.PORT = String(await boundPort(service, 'npm start'));
    expect(baseUrl).toBe(`http://127.0.0.1:${env.PORT}`);

    // Step 8: the runbooks.
    const uploaded = execFileSync('bash', ['-c', `set -euo pipefail\n${readmeBlock('upload')}`], {
      env,
      encoding: 'utf8',
    });
    expect(JSON.parse(uploaded.trim())).toMatchObject({ title: 'hikari-pool-exhausted', status: 'INDEXED' });

    const response = await postChat(baseUrl, { query: 'order-123 payment times out' }, { apiKey: adminKey });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
    const content = response.events.at(-2)?.data as {
      content_type: string;
      payload: { references: { source_type: string; source: string; values: { patterns: unknown[] } }[] };
    };
    expect(content.content_type).toBe('DIAGNOSIS_REPORT');
    expect(content.payload.references).toEqual([
      expect.objectContaining({ source_type: 'LOG', source: 'APPLICATION (FILE)' }),
    ]);
    expect(content.payload.references[0].values.patterns).toEqual([
      expect.objectContaining({ count: 6, service: 'order-service', level: 'ERROR' }),
    ]);
    for (const secret of [
      providerKey,
      loaded.SHOP_MYSQL_PASSWORD,
      adminKey!,
      loaded.AUDIT_ENCRYPTION_KEYS.slice(3),
    ]) {
      expect(output.text).not.toContain(secret);
    }
  });
});
