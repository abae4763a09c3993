import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { InvocationStore, RunCancelled, ToolBoundary } from '@app/harness';
import { DataSourceHealth, EvidenceTools, loadMysqlToolsConfig } from '@app/tools';
// The adapter itself, not part of the lib's public surface: its connection settings are tested directly.
import { BUSINESS_SQL_MODE, MysqlQueryExecutor } from '../../libs/tools/src/mysql/mysql-query-executor';
import { BusinessDatabase, createBusinessDatabase, dropBusinessDatabase } from '../support/business-db';
import { createHarnessFixture, HarnessFixture, startTestRun } from '../support/harness-fixture';
import { TEST_MYSQL } from '../support/test-env';
import { scaled } from '../support/test-timeouts';

const business: BusinessDatabase = {
  schema: `${process.env.E2E_SERVICE_DB}_orders`,
  user: `sbr_${randomBytes(4).toString('hex')}`,
  password: `pw-${randomBytes(8).toString('hex')}`,
};

function allowlist(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'mysql-tools-')), 'mysql-tools.yaml');
  const source = (
    id: string,
    functions?: string,
    port = TEST_MYSQL.port,
    password = 'E2E_BUSINESS_PASSWORD',
  ) => `      ${id}:
        url: mysql://${TEST_MYSQL.host}:${port}/${business.schema}
        username: \${E2E_BUSINESS_USER}
        password: \${${password}}
        default-schema: ${business.schema}
${functions ? `        allowed-functions: [${functions}]\n` : ''}        allowed-schemas:
          ${business.schema}:
            tables:
              biz_order:
                columns: [order_id, user_id, amount, payment_status, note, created_at, updated_at]
              payment_record:
                columns: [payment_id, order_id, channel, status, error_code, latency_ms, raw_payload, created_at]
`;
  writeFileSync(
    file,
    `harness:\n  mysql-tools:\n    data-sources:\n${source('order_readonly')}${source('slow_readonly', 'COUNT, SLEEP')}${source('down_readonly', undefined, 1)}${source('denied_readonly', undefined, TEST_MYSQL.port, 'E2E_BUSINESS_WRONG_PASSWORD')}`,
  );
  return file;
}

describe('query_mysql against a real business database with a read-only account', () => {
  let fixture: HarnessFixture;
  let tools: EvidenceTools;
  let boundary: ToolBoundary;

  beforeAll(async () => {
    await createBusinessDatabase(TEST_MYSQL, business);
    process.env.E2E_BUSINESS_USER = business.user;
    process.env.E2E_BUSINESS_PASSWORD = business.password;
    process.env.E2E_BUSINESS_WRONG_PASSWORD = `${business.password}-wrong`;
    fixture = await createHarnessFixture({
      mysqlToolsConfig: allowlist(),
      harnessEnv: {
        HARNESS_MYSQL_QUERY_TIMEOUT_MS: '700',
        HARNESS_MYSQL_MAX_ROWS: '20',
        HARNESS_MYSQL_MAX_CELL_CHARS: '24',
        HARNESS_TOOL_CALL_TIMEOUT_MS: '5000',
      },
    });
    tools = fixture.app.get(EvidenceTools);
    boundary = fixture.app.get(ToolBoundary);
  });

  afterAll(async () => {
    await fixture?.close();
    await dropBusinessDatabase(TEST_MYSQL, business);
  });

  const run = async (id: string, args: unknown, options = {}) => {
    const ctx = await startTestRun(fixture, options);
    const result = await boundary.execute(ctx, tools.queryMysql, id, args);
    ctx.close();
    return { ctx, result: JSON.parse(result.content) as Record<string, unknown> };
  };

  it('returns the rows of a legitimate query as bounded, redacted evidence', async () => {
    const { ctx, result } = await run('call_q1', {
      data_source: 'order_readonly',
      sql: 'SELECT o.order_id, o.payment_status, p.channel, p.error_code, p.latency_ms FROM biz_order o INNER JOIN payment_record p ON p.order_id = o.order_id WHERE o.order_id = ?',
      params: ['order-123'],
    });
    expect(result).toMatchObject({
      evidence_status: 'EVIDENCE_FOUND',
      tool_call_id: 'call_q1',
      source_kind: 'MYSQL',
      columns: ['order_id', 'payment_status', 'channel', 'error_code', 'latency_ms'],
      rows: [
        {
          order_id: 'order-123',
          payment_status: 'PAY_TIMEOUT',
          channel: 'alipay',
          error_code: 'ERR_TIMEOUT',
          latency_ms: expect.any(Number),
        },
      ],
      returned_count: 1,
      truncated: false,
    });
    expect((result.scope as { sql: string }).sql).toContain('LIMIT 20');
    expect(await fixture.app.get(InvocationStore).getReady(ctx.runId, 'call_q1')).toMatchObject({
      status: 'READY',
    });
  });

  it('keeps the scope and reports zero rows as NO_EVIDENCE', async () => {
    const { result } = await run('call_q2', {
      data_source: 'order_readonly',
      sql: 'SELECT order_id FROM biz_order WHERE order_id = ?',
      params: ['order-none'],
    });
    expect(result).toMatchObject({
      evidence_status: 'NO_EVIDENCE',
      returned_count: 0,
      rows: [],
      scope: { data_source: 'order_readonly', params: ['order-none'] },
    });
  });

  it('enforces the row and cell limits', async () => {
    const { result } = await run('call_q3', {
      data_source: 'order_readonly',
      sql: 'SELECT o.order_id, o.note, p.raw_payload FROM payment_record p INNER JOIN biz_order o ON o.order_id = p.order_id',
      params: [],
    });
    expect(result).toMatchObject({ evidence_status: 'EVIDENCE_FOUND', returned_count: 20, truncated: true });
    for (const row of result.rows as Record<string, string>[]) {
      expect(row.raw_payload.length).toBeLessThanOrEqual(24);
    }
  });

  it.each([
    [{ data_source: 'order_readonly', sql: 'DELETE FROM biz_order', params: [] }, 'WRITE_NOT_ALLOWED'],
    [
      { data_source: 'order_readonly', sql: 'SELECT card_number FROM biz_order', params: [] },
      'COLUMN_NOT_ALLOWED',
    ],
    [
      { data_source: 'order_readonly', sql: 'SELECT SLEEP(1) AS s FROM biz_order', params: [] },
      'FUNCTION_NOT_ALLOWED',
    ],
    [{ data_source: 'nope', sql: 'SELECT order_id FROM biz_order', params: [] }, 'UNKNOWN_DATA_SOURCE'],
    [
      { data_source: 'order_readonly', sql: 'SELECT order_id FROM biz_order WHERE order_id = ?', params: [] },
      'PLACEHOLDER_MISMATCH',
    ],
  ])('refuses %p with a Tool ERROR and runs nothing', async (args, code) => {
    const { result } = await run(`call_${code.toLowerCase()}`, args);
    expect(result).toMatchObject({ evidence_status: 'ERROR', error_code: code });
  });

  it('returns DATASOURCE_UNAVAILABLE when the business database cannot be reached', async () => {
    const { result } = await run('call_down', {
      data_source: 'down_readonly',
      sql: 'SELECT order_id FROM biz_order',
      params: [],
    });
    expect(result).toMatchObject({
      evidence_status: 'ERROR',
      error_code: 'DATASOURCE_UNAVAILABLE',
      message: 'The data source is unavailable: unreachable (the server did not answer).',
    });
  });

  it('says "access denied" when the business database refuses the account', async () => {
    const { result } = await run('call_denied', {
      data_source: 'denied_readonly',
      sql: 'SELECT order_id FROM biz_order',
      params: [],
    });
    expect(result).toMatchObject({
      evidence_status: 'ERROR',
      error_code: 'DATASOURCE_UNAVAILABLE',
      message:
        'The data source is unavailable: access denied (the server refused the account or its database).',
    });
  });

  it('shows each business data source as ok or degraded with the kind of its problem', async () => {
    const health = fixture.app.get(DataSourceHealth);
    await health.checkAll();
    const states = health.snapshot();
    const kinds = (id: string) => states[id].problems.map((problem) => problem.kind);
    expect(states.order_readonly.state).toBe('ok');
    expect(states.down_readonly.state).toBe('degraded');
    expect(kinds('down_readonly')).toEqual(['UNREACHABLE']);
    expect(kinds('denied_readonly')).toEqual(['ACCESS_DENIED']);
  });

  it('kills a query that runs past the timeout', async () => {
    const started = Date.now();
    const { result } = await run('call_slow', {
      data_source: 'slow_readonly',
      sql: 'SELECT SLEEP(5) AS s FROM biz_order LIMIT 1',
      params: [],
    });
    expect(result).toMatchObject({ evidence_status: 'ERROR', error_code: 'QUERY_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(3000);
    await expectNoRunningSleep();
  });

  it('kills the query when the run is cancelled', async () => {
    const client = new AbortController();
    const ctx = await startTestRun(fixture, { parentSignal: client.signal });
    setTimeout(() => client.abort(), 200);
    await expect(
      boundary.execute(ctx, tools.queryMysql, 'call_cancel', {
        data_source: 'slow_readonly',
        sql: 'SELECT SLEEP(4) AS s FROM biz_order LIMIT 1',
        params: [],
      }),
    ).rejects.toBeInstanceOf(RunCancelled);
    ctx.close();
    await expectNoRunningSleep();
  });

  describe('red-team statements (issue 15)', () => {
    const direct = async (sql: string, params: unknown[] = []) => {
      const [source] = loadMysqlToolsConfig(allowlist());
      return fixture.app.get(MysqlQueryExecutor).run(source, sql, params, new AbortController().signal);
    };

    it.each([
      [
        'GROUP BY / HAVING on an alias named like a hidden column',
        'SELECT COUNT(*) AS card_number FROM biz_order GROUP BY card_number HAVING card_number LIKE ?',
        ['4111 1111 1111 1123'],
      ],
      [
        'an ORDER BY expression on an alias named like a hidden column',
        'SELECT order_id, amount AS card_number FROM biz_order ORDER BY (card_number LIKE ?) DESC, order_id LIMIT 1',
        ['4111 1111 1111 1123'],
      ],
      [
        'WHERE on an alias named like a hidden column',
        'SELECT order_id, amount AS card_number FROM biz_order WHERE card_number LIKE ?',
        ['4111 1111 1111 1123'],
      ],
    ])('%s: MariaDB reads the hidden column, and the policy refuses it', async (_case, sql, params) => {
      // The attack is real: run unchecked, the answer depends on the hidden card numbers.
      const matching = await direct(sql, params);
      const other = await direct(sql, ['9999%']);
      expect(JSON.stringify(matching.rows)).not.toEqual(JSON.stringify(other.rows));
      const { result } = await run('call_alias', { data_source: 'order_readonly', sql, params });
      expect(result).toMatchObject({ evidence_status: 'ERROR', error_code: 'ALIAS_REFERENCE_NOT_ALLOWED' });
      expect(String(result.message)).toContain('whole ORDER BY item');
    });

    it('pins sql_mode on the business session, so a double-quoted text is a string, and refuses it anyway', async () => {
      const mode = await direct('SELECT @@SESSION.sql_mode AS sql_mode');
      expect(String(mode.rows[0].sql_mode).split(',').sort()).toEqual(BUSINESS_SQL_MODE.split(',').sort());
      // Under ANSI_QUOTES the same text reads the hidden column; the pinned session keeps it a string.
      const ansi = await createConnection({ ...TEST_MYSQL, database: business.schema });
      try {
        await ansi.query("SET SESSION sql_mode = 'ANSI_QUOTES'");
        const [rows] = await ansi.query<RowDataPacket[]>(
          'SELECT "card_number" AS x FROM biz_order WHERE order_id = \'order-123\'',
        );
        expect(rows[0].x).toMatch(/^4111 /);
      } finally {
        await ansi.end();
      }
      const pinned = await direct('SELECT "card_number" AS x FROM biz_order WHERE order_id = ?', [
        'order-123',
      ]);
      expect(pinned.rows).toEqual([{ x: 'card_number' }]);
      const { result } = await run('call_ansi', {
        data_source: 'order_readonly',
        sql: 'SELECT order_id FROM biz_order WHERE "card_number" LIKE ?',
        params: ['4111%'],
      });
      expect(result).toMatchObject({ evidence_status: 'ERROR', error_code: 'DOUBLE_QUOTES_NOT_ALLOWED' });
    });

    it.each([
      'SELECT error_code, COUNT(*) AS n FROM payment_record WHERE created_at >= NOW() - INTERVAL 2 DAY GROUP BY error_code HAVING COUNT(*) > ? ORDER BY n DESC',
      'SELECT error_code, COUNT(*) AS n FROM payment_record WHERE created_at >= DATE_SUB(NOW(), INTERVAL 2 DAY) GROUP BY error_code HAVING COUNT(*) > ? ORDER BY n DESC',
      'SELECT error_code, COUNT(*) AS n FROM payment_record WHERE created_at >= CURRENT_TIMESTAMP - INTERVAL 2 DAY AND created_at <= UTC_TIMESTAMP() + INTERVAL 1 DAY GROUP BY error_code HAVING COUNT(*) > ? ORDER BY n DESC',
    ])('runs the time window %s', async (sql) => {
      const { result } = await run('call_window', { data_source: 'order_readonly', sql, params: [0] });
      expect(result).toMatchObject({ evidence_status: 'EVIDENCE_FOUND' });
      expect(result.rows).toContainEqual({ error_code: 'ERR_TIMEOUT', n: expect.anything() });
    });

    it('names the allowed tables and columns when refusing', async () => {
      const table = await run('call_table', {
        data_source: 'order_readonly',
        sql: 'SELECT password_hash FROM user_account',
        params: [],
      });
      expect(table.result).toMatchObject({ evidence_status: 'ERROR', error_code: 'TABLE_NOT_ALLOWED' });
      expect(table.result.message).toContain(
        'Allowed tables of data source order_readonly: biz_order, payment_record.',
      );
      const column = await run('call_column', {
        data_source: 'order_readonly',
        sql: 'SELECT card_number FROM biz_order',
        params: [],
      });
      expect(column.result).toMatchObject({ evidence_status: 'ERROR', error_code: 'COLUMN_NOT_ALLOWED' });
      expect(column.result.message).toContain(
        'Allowed columns: biz_order: amount, created_at, note, order_id, payment_status, updated_at, user_id.',
      );
    });
  });

  it('refuses to start when a data source points at the service database, naming it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mysql-tools-')), 'own-db.yaml');
    writeFileSync(
      file,
      readFileSync(allowlist(), 'utf8').replace(
        /url: mysql:\/\/[^/]+:\d+\/\S+/,
        `url: mysql://localhost:${TEST_MYSQL.port}/${process.env.DB_NAME}`,
      ),
    );
    const result = spawnSync(process.execPath, ['dist/apps/server/src/main.js'], {
      env: { ...process.env, MYSQL_TOOLS_CONFIG: file },
      encoding: 'utf8',
      timeout: scaled(20_000),
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "harness.mysql-tools.data-sources.order_readonly: points at the service's own database",
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('cannot write through its own connections even when the policy is bypassed', async () => {
    const [source] = loadMysqlToolsConfig(allowlist());
    const executor = fixture.app.get(MysqlQueryExecutor);
    const signal = new AbortController().signal;
    const readOnly = await executor
      .run(source, 'SELECT @@session.transaction_read_only AS ro', [], signal)
      .catch(() => executor.run(source, 'SELECT @@session.tx_read_only AS ro', [], signal));
    expect(Number(readOnly.rows[0].ro)).toBe(1);
    await expect(
      executor.run(
        source,
        "INSERT INTO biz_order (order_id, user_id, amount, payment_status, created_at, updated_at) VALUES ('x', 'u', 1, 'PAID', NOW(), NOW())",
        [],
        signal,
      ),
    ).rejects.toMatchObject({ code: 'QUERY_FAILED' });
    const reader = await createConnection({
      ...TEST_MYSQL,
      user: business.user,
      password: business.password,
      database: business.schema,
    });
    try {
      await expect(
        reader.query("UPDATE biz_order SET amount = 0 WHERE order_id = 'order-123'"),
      ).rejects.toMatchObject({ code: 'ER_TABLEACCESS_DENIED_ERROR' });
    } finally {
      await reader.end();
    }
    const admin = await createConnection({ ...TEST_MYSQL, database: business.schema });
    try {
      const [rows] = await admin.query<RowDataPacket[]>(
        "SELECT COUNT(*) AS n FROM biz_order WHERE order_id = 'x'",
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await admin.end();
    }
  });
});

async function expectNoRunningSleep(): Promise<void> {
  const admin = await createConnection(TEST_MYSQL);
  try {
    for (let i = 0; i < 20; i += 1) {
      const [rows] = await admin.query<RowDataPacket[]>(
        "SELECT COUNT(*) AS n FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(%'",
      );
      if (Number(rows[0].n) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the SLEEP query is still running on the server');
  } finally {
    await admin.end();
  }
}
