import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Connection, createConnection } from 'mysql2/promise';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_MYSQL, TEST_REDIS } from '../support/test-env';

interface DoctorRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The built CLI as a process. Asynchronous on purpose: the stub LLM runs in this process and must
 * keep answering while the doctor asks it.
 */
function doctor(env: Record<string, string>): Promise<DoctorRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/apps/server/src/cli/doctor.js'], {
      env: { PATH: process.env.PATH!, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The line of one check with its fix line, for precise assertions. */
function lineOf(run: DoctorRun, check: string): string {
  const lines = run.stdout.split('\n');
  const index = lines.findIndex((line) => line.slice(5).startsWith(`${check}:`));
  if (index < 0) throw new Error(`no ${check} line in:\n${run.stdout}`);
  return lines[index + 1]?.startsWith('     fix:') ? `${lines[index]}\n${lines[index + 1]}` : lines[index];
}

// Every case runs the CLI as a process (about 2 s of CPU each, up to four per case); a loaded machine needs the room.
jest.setTimeout(300_000);

describe('npm run doctor (built CLI) against real MariaDB, Redis and the stub LLM', () => {
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const serviceDb = `${process.env.E2E_SERVICE_DB}_doctor`;
  const freshDb = `${process.env.E2E_SERVICE_DB}_doctor_fresh`;
  const businessDb = `doctor_biz_${suffix}`;
  const reader = { user: `doctor_ro_${suffix}`, password: randomBytes(12).toString('hex') };
  const writer = { user: `doctor_rw_${suffix}`, password: randomBytes(12).toString('hex') };
  const redisUsers = { noThrottle: `doctor-nothrottle-${suffix}`, pingOnly: `doctor-pingonly-${suffix}` };
  const redisPassword = randomBytes(12).toString('hex');
  const llmKey = `sk-doctor-${randomBytes(8).toString('hex')}`;
  const stub = new StubLlmServer();
  const admin = new Redis({ host: TEST_REDIS.host, port: TEST_REDIS.port, lazyConnect: true });
  const work = mkdtempSync(join(tmpdir(), 'doctor-'));
  const logsDir = join(work, 'logs');
  const allowlist = join(work, 'mysql-tools.yaml');
  let mysql: Connection;
  let base: Record<string, string>;

  beforeAll(async () => {
    mysql = await createConnection({ ...TEST_MYSQL, multipleStatements: true });
    await mysql.query(
      `CREATE DATABASE ${businessDb};
       CREATE TABLE ${businessDb}.shop_order (order_ref VARCHAR(32) PRIMARY KEY, state VARCHAR(16), placed_at DATETIME);
       CREATE USER '${reader.user}'@'%' IDENTIFIED BY '${reader.password}';
       GRANT SELECT ON ${businessDb}.* TO '${reader.user}'@'%';
       CREATE USER '${writer.user}'@'%' IDENTIFIED BY '${writer.password}';
       GRANT SELECT, INSERT ON ${businessDb}.* TO '${writer.user}'@'%';
       CREATE DATABASE ${freshDb};`,
    );
    writeFileSync(
      allowlist,
      [
        'harness:',
        '  mysql-tools:',
        '    data-sources:',
        '      shop:',
        '        url: ${SHOP_MYSQL_URL}',
        '        username: ${SHOP_MYSQL_USERNAME}',
        '        password: ${SHOP_MYSQL_PASSWORD}',
        `        default-schema: ${businessDb}`,
        '        allowed-schemas:',
        `          ${businessDb}:`,
        '            tables:',
        '              shop_order:',
        '                columns: [order_ref, state, placed_at]',
        '                hidden-columns: [state]',
      ].join('\n'),
    );
    mkdirSync(logsDir);
    writeFileSync(
      join(logsDir, 'application.jsonl'),
      [
        JSON.stringify({ ts: '2026-12-03 13:27:07,624', lvl: 'E', msg: 'pool exhausted' }),
        JSON.stringify({ ts: '2026-12-03 13:27:08,001', lvl: 'I', msg: 'retrying' }),
      ].join('\n'),
    );
    await stub.start();
    stub.load({ roles: {}, api_key: llmKey, models: ['doctor-model'] });
    await admin.connect();
    await admin.call(
      'ACL',
      'SETUSER',
      redisUsers.noThrottle,
      'reset',
      'on',
      `>${redisPassword}`,
      ...'resetkeys ~superbiz:harness:* resetchannels -@all +ping +get +eval +exists +strlen +set +incrby +decrby +ttl +expire'.split(
        ' ',
      ),
    );
    await admin.call(
      'ACL',
      'SETUSER',
      redisUsers.pingOnly,
      'reset',
      'on',
      `>${redisPassword}`,
      '-@all',
      '+ping',
    );

    base = {
      DB_HOST: TEST_MYSQL.host,
      DB_PORT: String(TEST_MYSQL.port),
      DB_USER: TEST_MYSQL.user,
      DB_PASSWORD: TEST_MYSQL.password,
      DB_NAME: serviceDb,
      REDIS_HOST: TEST_REDIS.host,
      REDIS_PORT: String(TEST_REDIS.port),
      LLM_BASE_URL: stub.baseUrl,
      LLM_API_KEY: llmKey,
      LLM_MODEL: 'doctor-model',
      AUDIT_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      API_KEYS: `chat|trace_reader|knowledge_admin=${randomBytes(24).toString('hex')}`,
      MYSQL_TOOLS_CONFIG: allowlist,
      SHOP_MYSQL_URL: `mysql://${TEST_MYSQL.host}:${TEST_MYSQL.port}/${businessDb}`,
      SHOP_MYSQL_USERNAME: reader.user,
      SHOP_MYSQL_PASSWORD: reader.password,
      LOG_BACKEND: 'jsonl',
      LOGS_JSONL_DIR: logsDir,
      LOGS_JSONL_TOPICS: 'APPLICATION=application*.jsonl',
    };
    // The walkthrough's first step: create and migrate the service database.
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['dist/apps/server/src/cli/migrate.js', 'run', '--create-database'],
        {
          env: { PATH: process.env.PATH!, ...base },
          stdio: 'ignore',
        },
      );
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`migrate exited ${code}`))));
    });
  });

  afterAll(async () => {
    await mysql.query(
      `DROP USER IF EXISTS '${reader.user}'@'%', '${writer.user}'@'%';
       DROP DATABASE IF EXISTS ${businessDb};
       DROP DATABASE IF EXISTS ${serviceDb};
       DROP DATABASE IF EXISTS ${freshDb};`,
    );
    await mysql.end();
    await admin.call('ACL', 'DELUSER', redisUsers.noThrottle, redisUsers.pingOnly);
    await admin.quit();
    await stub.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const secrets = () => [
    reader.password,
    writer.password,
    redisPassword,
    llmKey,
    base.AUDIT_ENCRYPTION_KEYS.slice(3),
  ];
  const expectNoSecret = (run: DoctorRun) => {
    for (const secret of secrets()) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }
  };

  it('passes a good configuration: every check OK, the empty knowledge base a warning with how to upload, exit 0', async () => {
    const run = await doctor(base);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(lineOf(run, 'configuration')).toBe('OK   configuration: every setting is valid');
    expect(lineOf(run, 'service database')).toMatch(
      /^OK {3}service database: .*_doctor on .*: reachable, every migration applied$/,
    );
    expect(lineOf(run, 'redis')).toMatch(
      /^OK {3}redis: .* as default: PING, evidence records and the rate limit work$/,
    );
    expect(lineOf(run, 'llm')).toMatch(
      /^OK {3}llm: doctor-model at http:\/\/127\.0\.0\.1:\d+\/v1: the provider accepted/,
    );
    expect(lineOf(run, 'data source shop')).toMatch(
      /^OK {3}data source shop: .*: reachable, SELECT only, all 1 allowlisted table\(s\) and their columns found$/,
    );
    expect(run.stdout).toContain(
      `OK   data source shop: values hidden from the agent by hidden-columns: ${businessDb}.shop_order.state\n`,
    );
    expect(lineOf(run, 'logs')).toMatch(
      /^OK {3}logs: application\.jsonl: json, topic APPLICATION \(rule\), services unknown, 2026-12-03T13:27:07\.624Z \.\. 2026-12-03T13:27:08\.001Z \(zone-less times read as UTC\), 2 records from 2 lines, unreadable 0 \(0%\)$/,
    );
    const knowledge = lineOf(run, 'knowledge base');
    expect(knowledge).toMatch(
      /^WARN knowledge base: the knowledge base is empty: lookup_knowledge finds no runbook/,
    );
    expect(knowledge).toContain('fix: upload runbooks');
    expect(knowledge).toContain('/api/documents/upload');
    expect(run.stdout).toContain('doctor: no blocking problem, 1 warning(s)');
    expectNoSecret(run);
  });

  it('configuration: a setting start-up refuses fails, naming the key', async () => {
    const run = await doctor({ ...base, WEB_UI_DIR: join(work, 'no-ui'), HARNESS_MYSQL_MAX_ROWS: '0' });
    expect(run.status).toBe(1);
    const line = lineOf(run, 'configuration');
    expect(line).toMatch(/^FAIL configuration: the service would not start: /);
    expect(line).toContain('HARNESS_MYSQL_MAX_ROWS');
    expect(line).toContain(`WEB_UI_DIR has no index.html (${join(work, 'no-ui')})`);
    // the other checks still ran
    expect(lineOf(run, 'redis')).toMatch(/^OK /);
  });

  it('knowledge base: OK once a document is indexed', async () => {
    await mysql.query(
      `INSERT INTO ${serviceDb}.knowledge_document (document_id, title, file_name, stored_path, content_type, size_bytes, status, chunk_count) VALUES ('doc-1', 'Pool runbook', 'pool.md', 'var/x', 'text/markdown', 10, 'INDEXED', 1)`,
    );
    try {
      const run = await doctor(base);
      expect(lineOf(run, 'knowledge base')).toBe('OK   knowledge base: 1 document(s) indexed');
      expect(run.status).toBe(0);
    } finally {
      await mysql.query(`DELETE FROM ${serviceDb}.knowledge_document WHERE document_id = 'doc-1'`);
    }
  });

  it('service database: a missing database and unapplied migrations fail with the command to run', async () => {
    const missing = await doctor({ ...base, DB_NAME: `${serviceDb}_missing` });
    expect(missing.status).toBe(1);
    expect(lineOf(missing, 'service database')).toContain(
      'FAIL service database: database ' + `${serviceDb}_missing does not exist`,
    );
    expect(lineOf(missing, 'service database')).toContain('npm run migration:run -- --create-database');

    const fresh = await doctor({ ...base, DB_NAME: freshDb, DB_MIGRATIONS_RUN: 'false' });
    expect(fresh.status).toBe(1);
    expect(lineOf(fresh, 'service database')).toMatch(
      /^FAIL service database: .* migration\(s\) not applied \(.*\) and DB_MIGRATIONS_RUN=false\n {5}fix: run `npm run migration:run`$/,
    );
    const migratedAtStart = await doctor({ ...base, DB_NAME: freshDb, DB_MIGRATIONS_RUN: 'true' });
    expect(lineOf(migratedAtStart, 'service database')).toMatch(
      /^WARN .*the service applies them at start-up/,
    );
    expect(lineOf(migratedAtStart, 'knowledge base')).toMatch(/^WARN knowledge base: not counted/);
    expect(migratedAtStart.status).toBe(0);
  });

  it('redis: unreachable and an ACL without the evidence commands fail; without the rate-limit keys it warns', async () => {
    const down = await doctor({ ...base, REDIS_PORT: '1', REDIS_CONNECT_TIMEOUT_MS: '300' });
    expect(down.status).toBe(1);
    expect(lineOf(down, 'redis')).toMatch(
      /^FAIL redis: cannot use 127\.0\.0\.1:1: connection failed \(ECONNREFUSED\)/,
    );

    const pingOnly = await doctor({
      ...base,
      REDIS_USERNAME: redisUsers.pingOnly,
      REDIS_PASSWORD: redisPassword,
    });
    expect(pingOnly.status).toBe(1);
    expect(lineOf(pingOnly, 'redis')).toMatch(
      new RegExp(
        `^FAIL redis: ACL user ${redisUsers.pingOnly} may not write evidence records.*\\n {5}fix: ACL SETUSER ${redisUsers.pingOnly} ~superbiz:harness:tool-call:\\* \\+get \\+eval`,
      ),
    );

    const noThrottle = await doctor({
      ...base,
      REDIS_USERNAME: redisUsers.noThrottle,
      REDIS_PASSWORD: redisPassword,
    });
    expect(noThrottle.status).toBe(0);
    expect(lineOf(noThrottle, 'redis')).toMatch(
      /^WARN redis: .* may not run the shared rate limit.*\n {5}fix: ACL SETUSER .* ~superbiz:throttle:.*_doctor:\* \+incr \+pttl \+pexpire$/,
    );

    const wrongPassword = await doctor({
      ...base,
      REDIS_USERNAME: redisUsers.noThrottle,
      REDIS_PASSWORD: 'wrong',
    });
    expect(lineOf(wrongPassword, 'redis')).toContain('FAIL redis: cannot use');
    expect(lineOf(wrongPassword, 'redis')).toContain('REDIS_USERNAME/REDIS_PASSWORD were rejected');
    for (const run of [down, pingOnly, noThrottle, wrongPassword]) expectNoSecret(run);
  });

  it('llm: a rejected key (401) and an unknown model fail with the fix', async () => {
    const badKey = await doctor({ ...base, LLM_API_KEY: 'sk-wrong-key' });
    expect(badKey.status).toBe(1);
    expect(lineOf(badKey, 'llm')).toMatch(
      /^FAIL llm: doctor-model at .*: the provider rejected LLM_API_KEY \(401\)\n {5}fix: set a valid LLM_API_KEY for LLM_BASE_URL$/,
    );
    expect(badKey.stdout).not.toContain('sk-wrong-key');

    const wrongModel = await doctor({ ...base, LLM_MODEL: 'no-such-model' });
    expect(wrongModel.status).toBe(1);
    expect(lineOf(wrongModel, 'llm')).toMatch(
      /^FAIL llm: no-such-model at .*: model no-such-model not found in the provider's model list\n {5}fix: set LLM_MODEL to a model the provider lists/,
    );
  });

  it('llm: a base URL without /v1 or with /chat/completions appended is named with the URL that works, never the model', async () => {
    const v1 = base.LLM_BASE_URL;
    const root = v1.replace(/\/v1$/, '');
    for (const [url, mistake] of [
      [root, 'lacks the /v1 path'],
      [`${v1}/chat/completions`, 'ends in /chat/completions'],
    ]) {
      for (const check of ['models', 'completion']) {
        const run = await doctor({ ...base, LLM_BASE_URL: url, LLM_STARTUP_CHECK: check });
        expect(run.status).toBe(1);
        const line = lineOf(run, 'llm');
        expect(line).toContain(mistake);
        expect(line).toContain(`fix: set LLM_BASE_URL=${v1}`);
        expect(line).not.toMatch(/LLM_MODEL|LLM_STARTUP_CHECK/);
      }
    }
  });

  it('business data source: an account with INSERT, a missing column and an unreachable server fail', async () => {
    const withInsert = await doctor({
      ...base,
      SHOP_MYSQL_USERNAME: writer.user,
      SHOP_MYSQL_PASSWORD: writer.password,
    });
    expect(withInsert.status).toBe(1);
    expect(lineOf(withInsert, 'data source shop')).toMatch(
      new RegExp(
        `^FAIL data source shop: the account is not read-only: INSERT ON \`${businessDb}\`\\.\\*\\n {5}fix: use an account with SELECT only: CREATE USER`,
      ),
    );

    const extraColumn = join(work, 'extra-column.yaml');
    writeFileSync(
      extraColumn,
      readFileSync(allowlist, 'utf8').replace(
        '[order_ref, state, placed_at]',
        '[order_ref, state, placed_at, refund_state]',
      ),
    );
    const missing = await doctor({ ...base, MYSQL_TOOLS_CONFIG: extraColumn });
    expect(missing.status).toBe(1);
    expect(lineOf(missing, 'data source shop')).toBe(
      `FAIL data source shop: allowlisted but not found or not readable by the account: ${businessDb}.shop_order.refund_state\n` +
        `     fix: correct the names in ${extraColumn}, or GRANT SELECT on them to the account`,
    );

    const wrongPassword = await doctor({ ...base, SHOP_MYSQL_PASSWORD: 'not-the-password' });
    expect(lineOf(wrongPassword, 'data source shop')).toContain('FAIL data source shop: cannot connect to');
    expect(lineOf(wrongPassword, 'data source shop')).toContain('the server rejected the username/password');
    expect(wrongPassword.stdout).not.toContain('not-the-password');

    const unreachable = await doctor({ ...base, SHOP_MYSQL_URL: `mysql://127.0.0.1:1/${businessDb}` });
    expect(lineOf(unreachable, 'data source shop')).toContain('127.0.0.1:1 is not reachable (ECONNREFUSED)');
    for (const run of [withInsert, missing, wrongPassword, unreachable]) expectNoSecret(run);
  });

  it('logs: a file no format reads warns by name, partly readable warns, no readable file or directory fails', async () => {
    const dir = mkdtempSync(join(work, 'bad-logs-'));
    writeFileSync(join(dir, 'application-words.log'), 'just some words\nand more words\n');
    writeFileSync(
      join(dir, 'application-mixed.jsonl'),
      `${JSON.stringify({ '@timestamp': '2026-12-03T13:27:07Z', message: 'ok' })}\nnot json\n`,
    );
    const run = await doctor({ ...base, LOGS_JSONL_DIR: dir });
    expect(run.stdout).toContain(
      'WARN logs: application-words.log: not searched (no known log format reads its first lines; set format= in LOGS_FILE_RULES)',
    );
    expect(run.stdout).toContain(
      'WARN logs: log file application-mixed.jsonl (json, APPLICATION): 1 of 2 lines',
    );

    const onlyWords = mkdtempSync(join(work, 'words-logs-'));
    writeFileSync(join(onlyWords, 'notes.txt'), 'just some words\n');
    const none = await doctor({ ...base, LOGS_JSONL_DIR: onlyWords });
    expect(none.status).toBe(1);
    expect(none.stdout).toContain(
      `FAIL logs: no readable log file in ${onlyWords}: query_logs would find nothing`,
    );

    const noLogs = await doctor({ ...base, LOG_BACKEND: 'none' });
    expect(noLogs.status).toBe(0);
    expect(lineOf(noLogs, 'logs')).toBe(
      'WARN logs: LOG_BACKEND=none: diagnoses run without logs\n' +
        '     fix: LOG_BACKEND=jsonl LOGS_JSONL_DIR=<your log directory>',
    );

    const missingDir = await doctor({ ...base, LOGS_JSONL_DIR: join(work, 'nope') });
    expect(missingDir.status).toBe(1);
    expect(lineOf(missingDir, 'logs')).toBe(
      'FAIL logs: LOGS_JSONL_DIR must name an existing directory when LOG_BACKEND=jsonl\n' +
        '     fix: set LOGS_JSONL_DIR to the directory of your JSON-lines files',
    );
  });
});
