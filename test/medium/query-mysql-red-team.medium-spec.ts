import { randomBytes } from 'node:crypto';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { checkSql, inspectDataSource, MysqlDataSourceConfig, parseMysqlToolsConfig } from '@app/tools';
// The adapter itself, not part of the lib's public surface: its connection handling is tested directly.
import { BUSINESS_SQL_MODE, MysqlQueryExecutor } from '../../libs/tools/src/mysql/mysql-query-executor';
import type { QueryMysqlConfig } from '../../libs/tools/src/mysql/query-mysql.config';
import { BusinessDatabase, createBusinessDatabase, dropBusinessDatabase } from '../support/business-db';
import { PrivateMariadb, startPrivateMariadb } from '../support/private-mariadb';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_MYSQL } from '../support/test-env';
import { scaled } from '../support/test-timeouts';

// The longest test or hook here needs up to 60 s on an idle machine; the suite's
// time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(60_000));

/**
 * Red-team corpus 4 (issue 35) against a live MariaDB: each refused form is shown to be really harmful
 * when run unchecked (the server reads it differently from the policy, or it costs what no limit
 * stops), and each allowed form harmless. "direct" runs bypass the policy on purpose.
 */
const business: BusinessDatabase = {
  schema: `${process.env.E2E_SERVICE_DB}_redteam`,
  user: `srt_${randomBytes(4).toString('hex')}`,
  password: `pw-${randomBytes(8).toString('hex')}`,
};

const LIMITS = {
  maxRows: 20,
  maxCellChars: 64,
  maxTotalBytes: 16 * 1024,
  queryTimeoutMs: 3000,
  maxResultBytes: 64 * 1024,
} as QueryMysqlConfig;

function allowlist(host: string, port: number, schema: string): MysqlDataSourceConfig {
  const [source] = parseMysqlToolsConfig(
    `harness:
  mysql-tools:
    data-sources:
      orders:
        url: mysql://${host}:${port}/${schema}
        username: \${RT_USER}
        password: \${RT_PASSWORD}
        default-schema: ${schema}
        allowed-schemas:
          ${schema}:
            tables:
              biz_order:
                columns: [order_id, user_id, amount, payment_status, note, created_at]
              payment_record:
                columns: [payment_id, order_id, channel, status, error_code, latency_ms, created_at]
              refund:
                columns: [refund_id, order_id, card_number]
`,
    'red-team',
    { RT_USER: business.user, RT_PASSWORD: business.password },
  );
  return source;
}

const signal = () => new AbortController().signal;

describe('query_mysql red-team corpus 4 against a live MariaDB', () => {
  let executor: MysqlQueryExecutor;
  let source: MysqlDataSourceConfig;
  const admin = () => createConnection({ ...TEST_MYSQL, database: business.schema });

  beforeAll(async () => {
    await createBusinessDatabase(TEST_MYSQL, business);
    const connection = await admin();
    try {
      // A later table with an allowlisted column named like a hidden one of biz_order.
      await connection.query(
        'CREATE TABLE refund (refund_id VARCHAR(32) PRIMARY KEY, order_id VARCHAR(32) NOT NULL, card_number VARCHAR(32) NULL)',
      );
      await connection.query(
        "INSERT INTO refund SELECT CONCAT('r-', order_id), order_id, 'masked' FROM biz_order",
      );
    } finally {
      await connection.end();
    }
    source = allowlist(TEST_MYSQL.host, TEST_MYSQL.port, business.schema);
    executor = new MysqlQueryExecutor(LIMITS);
  });

  afterAll(async () => {
    await executor?.onApplicationShutdown();
    await dropBusinessDatabase(TEST_MYSQL, business);
  });

  const direct = (sql: string, params: unknown[] = []) => executor.run(source, sql, params, signal());
  const policy = (sql: string, params: unknown[]) => checkSql(sql, params.length, source, LIMITS.maxRows);

  describe('scope', () => {
    it('an unqualified column in ON is read from the tables joined so far, a hidden one included: refused', async () => {
      const sql =
        'SELECT o.order_id FROM biz_order o INNER JOIN payment_record p ON p.order_id = o.order_id AND card_number LIKE ? ' +
        'INNER JOIN refund r ON r.order_id = o.order_id';
      // refund.card_number is always 'masked': rows for '4111%' can only come from the hidden biz_order.card_number.
      expect((await direct(sql, ['4111 1111 1111 1123'])).rows).toEqual([{ order_id: 'order-123' }]);
      expect((await direct(sql, ['masked'])).rows).toEqual([]);
      // The policy resolves like the server: among o and p no allowlisted card_number exists.
      expect(policy(sql, ['4111%'])).toMatchObject({ allowed: false, code: 'COLUMN_NOT_ALLOWED' });
      const later = sql.replace('AND card_number LIKE ?', '') + ' AND card_number LIKE ?';
      expect(policy(later, ['4111%'])).toMatchObject({ allowed: false, code: 'AMBIGUOUS_COLUMN' });
    });

    it("the server's ambiguous-column error would reveal a hidden column: refused, and never passed through", async () => {
      const sql =
        'SELECT o.order_id FROM biz_order o INNER JOIN refund r ON r.order_id = o.order_id WHERE card_number = ?';
      const failure = await direct(sql, ['x']).catch((error: unknown) => error);
      expect(failure).toMatchObject({
        code: 'QUERY_FAILED',
        safeMessage: 'The query failed on the data source.',
      });
      expect(JSON.stringify(failure)).not.toContain('card_number');
      expect(String((failure as Error).message)).not.toContain('card_number');
      expect(policy(sql, ['x'])).toMatchObject({ allowed: false, code: 'AMBIGUOUS_COLUMN' });
    });

    it('a qualified join is allowed and reads only what it names', async () => {
      const sql =
        'SELECT o.order_id, r.card_number, p.status FROM biz_order o INNER JOIN refund r ON r.order_id = o.order_id ' +
        'INNER JOIN payment_record p ON p.order_id = o.order_id WHERE o.order_id = ?';
      const checked = policy(sql, ['order-123']);
      if (!checked.allowed) throw new Error(checked.message);
      const result = await direct(checked.normalizedSql, ['order-123']);
      expect(result.rows).toEqual([{ order_id: 'order-123', card_number: 'masked', status: 'TIMEOUT' }]);
    });
  });

  describe('cost', () => {
    it('nested growing REPLACE multiplies its input: refused; a shrinking one is allowed', async () => {
      const sql = "SELECT LENGTH(REPLACE(REPLACE(?, 'x', ?), 'x', ?)) AS n FROM biz_order LIMIT 1";
      const params = ['x'.repeat(100), 'x'.repeat(100), 'yy'];
      // 202 characters in, 20 000 out; with 1000-character params it is 2·10⁹ and no KILL stops it.
      expect((await direct(sql, params)).rows).toEqual([{ n: 20000 }]);
      expect(policy(sql, params)).toMatchObject({ allowed: false, code: 'FUNCTION_NOT_ALLOWED' });
      const shrinking = policy(
        "SELECT REPLACE(REPLACE(LEFT(error_code, 64), '_', ' '), 'ERR', '') AS e FROM payment_record WHERE error_code IS NOT NULL LIMIT 1",
        [],
      );
      if (!shrinking.allowed) throw new Error(shrinking.message);
      expect((await direct(shrinking.normalizedSql)).rows[0].e).toMatch(/^ [A-Z]+$/);
    });

    it('stops reading past the byte cap and kills the statement, and the pool keeps working', async () => {
      const result = await direct("SELECT seq, REPEAT('x', 10000) AS r FROM seq_1_to_100000000");
      expect(result.truncated_at_bytes).toBe(LIMITS.maxResultBytes);
      expect(result.rows.length).toBeLessThan(8);
      await expectNotRunning('seq_1_to_100000000');
      expect((await direct('SELECT COUNT(*) AS n FROM biz_order')).rows).toEqual([{ n: '240' }]);
    });
  });

  describe('limits', () => {
    it('abandons a statement whose server stops answering after the stop, freeing its connection', async () => {
      const proxy = new TcpProxy(TEST_MYSQL.port, TEST_MYSQL.host);
      const port = await proxy.start();
      const viaProxy = {
        ...allowlist(TEST_MYSQL.host, port, business.schema),
        functions: new Set(['SLEEP']),
      };
      const quick = new MysqlQueryExecutor({ ...LIMITS, queryTimeoutMs: 300 });
      try {
        expect((await quick.run(viaProxy, 'SELECT 1 AS n', [], signal())).rows).toEqual([{ n: 1 }]);
        const call = quick.run(viaProxy, 'SELECT SLEEP(30) AS s', [], signal());
        // The pooled connection stops answering; KILL still reaches the server on a new connection.
        await new Promise((resolve) => setTimeout(resolve, 100));
        proxy.freezeOpen();
        await expect(call).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' });
        await expectNotRunning('SLEEP(30)');
      } finally {
        await proxy.cut();
        await quick.onApplicationShutdown().catch(() => undefined);
      }
    });
  });

  describe('resources', () => {
    it('leaves no prepared statement on the server, where execute() leaves one per statement', async () => {
      const reader = await createConnection({
        ...TEST_MYSQL,
        user: business.user,
        password: business.password,
        database: business.schema,
      });
      try {
        for (let i = 0; i < 5; i += 1) await reader.execute(`SELECT ${i} AS n FROM biz_order LIMIT 1`);
        const [rows] = await reader.query<RowDataPacket[]>(
          "SHOW SESSION STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_close')",
        );
        expect(Object.fromEntries(rows.map((row) => [row.Variable_name, Number(row.Value)]))).toEqual({
          Com_stmt_prepare: 5,
          Com_stmt_close: 0,
        });
      } finally {
        await reader.end();
      }
      for (let i = 0; i < 12; i += 1)
        await direct(`SELECT ${i} AS n, order_id FROM biz_order WHERE order_id = ?`, ['x']);
      for (let i = 0; i < 8; i += 1) {
        const status = await direct("SHOW SESSION STATUS LIKE 'Com_stmt_prepare'");
        expect(status.rows).toEqual([{ Variable_name: 'Com_stmt_prepare', Value: '0' }]);
      }
    });
  });

  describe('connection state', () => {
    const hostile = "a\\' OR 1=1 -- ";

    it('binds values as literals the pinned session reads whole', async () => {
      const session = await direct(
        'SELECT @@SESSION.sql_mode AS m, @@character_set_client AS c, @@character_set_connection AS n, @@character_set_results AS r',
      );
      expect(session.rows[0]).toEqual({
        m: BUSINESS_SQL_MODE,
        c: 'utf8mb4',
        n: 'utf8mb4',
        r: 'utf8mb4',
      });
      expect((await direct('SELECT ? AS v', [hostile])).rows).toEqual([{ v: hostile }]);
      expect((await direct('SELECT ? AS v', ["縗' OR 1=1 -- "])).rows).toEqual([{ v: "縗' OR 1=1 -- " }]);
    });

    describe('on a server with a GBK default, skip-character-set-client-handshake and NO_BACKSLASH_ESCAPES', () => {
      let server: PrivateMariadb;

      beforeAll(async () => {
        server = await startPrivateMariadb([
          '--skip-character-set-client-handshake',
          '--character-set-server=gbk',
          '--collation-server=gbk_chinese_ci',
          '--sql-mode=NO_BACKSLASH_ESCAPES',
        ]);
        const root = await createConnection({ host: server.host, port: server.port, user: 'root' });
        try {
          await root.query('CREATE DATABASE shop');
          await root.query(`CREATE USER '${business.user}'@'%' IDENTIFIED BY '${business.password}'`);
          await root.query(`GRANT SELECT ON shop.* TO '${business.user}'@'%'`);
        } finally {
          await root.end();
        }
      });

      afterAll(async () => {
        await server?.stop();
      });

      it('ends an escaped literal early on an unpinned connection (the harm)', async () => {
        const raw = await createConnection({ host: server.host, port: server.port, user: 'root' });
        try {
          // NO_BACKSLASH_ESCAPES: the escaping backslash is a character, the quote ends the literal.
          const [nbe] = await raw.query<RowDataPacket[]>({
            sql: 'SELECT ? AS v',
            values: [hostile],
            rowsAsArray: true,
          });
          expect(nbe[0][0]).not.toBe(hostile);
          // GBK on the client leg: 0x97 0x5C is one character, which swallows the escaping backslash.
          await raw.query("SET SESSION sql_mode = ''");
          const value = "縗' OR 1=1 -- ";
          const [gbk] = await raw.query<RowDataPacket[]>({
            sql: 'SELECT ? AS v',
            values: [value],
            rowsAsArray: true,
          });
          expect(gbk[0][0]).not.toBe(value);
        } finally {
          await raw.end();
        }
      });

      it('doctor names the setting there, and finds the shared server pinnable', async () => {
        const there = await inspectDataSource(allowlist(server.host, server.port, 'shop'));
        expect(there).toMatchObject({ reachable: true });
        expect(there.reachable && there.session).toEqual([
          expect.stringContaining('character_set_client is gbk, not utf8mb4'),
          'character_set_connection is gbk, not utf8mb4',
          'character_set_results is gbk, not utf8mb4',
        ]);
        expect(await inspectDataSource(source)).toMatchObject({ reachable: true, session: [] });
      });

      it('refuses every query there, naming the setting, and runs nothing', async () => {
        const pinnedOff = allowlist(server.host, server.port, 'shop');
        const other = new MysqlQueryExecutor(LIMITS);
        try {
          const failure = await other
            .run(pinnedOff, 'SELECT ? AS v', [hostile], signal())
            .catch((error: unknown) => error);
          expect(failure).toMatchObject({ code: 'DATASOURCE_MISCONFIGURED' });
          expect((failure as { safeMessage: string }).safeMessage).toContain(
            'character_set_client is gbk, not utf8mb4',
          );
          expect((failure as { safeMessage: string }).safeMessage).toContain(
            'skip-character-set-client-handshake',
          );
        } finally {
          await other.onApplicationShutdown();
        }
      });
    });
  });
});

async function expectNotRunning(fragment: string): Promise<void> {
  const admin = await createConnection(TEST_MYSQL);
  try {
    for (let i = 0; i < 50; i += 1) {
      const [rows] = await admin.query<RowDataPacket[]>(
        'SELECT COUNT(*) AS n FROM information_schema.processlist WHERE info LIKE ? AND id <> CONNECTION_ID()',
        [`%${fragment}%`],
      );
      if (Number(rows[0].n) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`a statement reading ${fragment} is still running on the server`);
  } finally {
    await admin.end();
  }
}
