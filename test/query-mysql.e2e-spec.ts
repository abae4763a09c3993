import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { InvocationStore, RunCancelled, ToolBoundary } from '@app/harness';
import { EvidenceTools, loadMysqlToolsConfig, MysqlQueryExecutor } from '@app/tools';
import { BusinessDatabase, createBusinessDatabase, dropBusinessDatabase } from './support/business-db';
import { createHarnessFixture, HarnessFixture, startTestRun } from './support/harness-fixture';
import { TEST_MYSQL } from './support/test-env';

const business: BusinessDatabase = {
  schema: `${process.env.E2E_SERVICE_DB}_orders`,
  user: `sbr_${randomBytes(4).toString('hex')}`,
  password: `pw-${randomBytes(8).toString('hex')}`,
};

function allowlist(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'mysql-tools-')), 'mysql-tools.yaml');
  const source = (id: string, functions?: string, port = TEST_MYSQL.port) => `      ${id}:
        url: mysql://${TEST_MYSQL.host}:${port}/${business.schema}
        username: \${E2E_BUSINESS_USER}
        password: \${E2E_BUSINESS_PASSWORD}
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
    `harness:\n  mysql-tools:\n    data-sources:\n${source('order_readonly')}${source('slow_readonly', 'COUNT, SLEEP')}${source('down_readonly', undefined, 1)}`,
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
      message: 'The data source is unavailable.',
    });
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
