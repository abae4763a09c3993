import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMysqlToolsConfig } from './mysql-tools-config';
import { checkSql, droppedWords, MAX_SQL_TOKENS, SQL_REJECTION_CODES } from './sql-policy';

interface CorpusEntry {
  sql: string;
  params: unknown[];
  expect: string;
  class?: string;
}

const fixtures = join(__dirname, '../../../../test/fixtures');
const corpus = JSON.parse(readFileSync(join(fixtures, 'sql-policy-corpus.json'), 'utf8')) as CorpusEntry[];
const [source] = parseMysqlToolsConfig(
  readFileSync(join(fixtures, 'sql-policy-allowlist.yaml'), 'utf8'),
  'allowlist',
  {
    ORDER_MYSQL_USERNAME: 'reader',
    ORDER_MYSQL_PASSWORD: 'secret',
  },
);
const MAX_ROWS = 50;

describe('SQL policy security suite', () => {
  const hostile = corpus.filter((entry) => entry.expect !== 'ALLOWED');
  const legitimate = corpus.filter((entry) => entry.expect === 'ALLOWED');

  it('has at least 100 hostile and 25 legitimate statements, with known codes', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(100);
    expect(legitimate.length).toBeGreaterThanOrEqual(25);
    for (const entry of hostile) expect(SQL_REJECTION_CODES).toContain(entry.expect);
  });

  it.each(hostile.map((entry) => [entry.expect, entry.sql.slice(0, 120), entry]))(
    'rejects with %s: %s',
    (_code, _sql, entry) => {
      const result = checkSql(entry.sql, entry.params.length, source, MAX_ROWS);
      expect(result).toMatchObject({ allowed: false, code: entry.expect });
    },
  );

  it.each(legitimate.map((entry) => [entry.sql, entry]))('accepts %s', (_sql, entry) => {
    const result = checkSql(entry.sql, entry.params.length, source, MAX_ROWS);
    expect(result).toMatchObject({ allowed: true, placeholders: entry.params.length });
  });
});

/** Round four: the classes where the policy's model of the server differed from the server's (issue 35). */
const corpus4 = JSON.parse(readFileSync(join(fixtures, 'sql-policy-corpus-4.json'), 'utf8')) as CorpusEntry[];

describe('SQL policy red-team corpus 4 (scope, cost, connection state, resources, result names)', () => {
  it.each(corpus4.map((entry) => [entry.class, entry.expect, entry.sql.slice(0, 140), entry]))(
    '%s: %s for %s',
    (_class, _code, _sql, entry) => {
      const result = checkSql(entry.sql, entry.params.length, source, MAX_ROWS);
      if (entry.expect === 'ALLOWED')
        expect(result).toMatchObject({ allowed: true, placeholders: entry.params.length });
      else expect(result).toMatchObject({ allowed: false, code: entry.expect });
    },
  );

  it.each([
    [
      'SELECT o.order_id, p.order_id FROM biz_order o INNER JOIN payment_record p ON p.order_id = o.order_id',
      'order_id',
    ],
    [
      'SELECT o.created_at, p.updated_at AS created_at FROM biz_order o INNER JOIN payment_record p ON p.order_id = o.order_id',
      'created_at',
    ],
    ['SELECT COUNT(*) AS n, MAX(amount) AS n FROM biz_order', 'n'],
  ])('allows and warns about duplicate result names: %s', (sql, name) => {
    const result = checkSql(sql, 0, source, MAX_ROWS);
    expect(result).toMatchObject({ allowed: true, warnings: [expect.stringContaining(`named ${name};`)] });
  });

  it('has no warnings for distinct result names', () => {
    const result = checkSql(
      'SELECT o.order_id, p.status FROM biz_order o INNER JOIN payment_record p ON p.order_id = o.order_id',
      0,
      source,
      MAX_ROWS,
    );
    expect(result).toMatchObject({ allowed: true });
    expect(result).not.toHaveProperty('warnings');
  });

  it('names only allowlisted columns when it refuses an unqualified one', () => {
    const result = checkSql(
      'SELECT o.order_id FROM biz_order o INNER JOIN payment_record p ON p.order_id = o.order_id WHERE channel = ?',
      1,
      source,
      MAX_ROWS,
    );
    expect(result).toEqual({
      allowed: false,
      code: 'AMBIGUOUS_COLUMN',
      message:
        'Column channel must be qualified with its table alias (p.channel) when the query has more than one table.',
    });
  });
});

describe('checkSql', () => {
  it.each([
    ['SELECT order_id FROM biz_order', 'SELECT `order_id` FROM `biz_order` LIMIT 50'],
    ['SELECT order_id FROM biz_order LIMIT 1000', 'SELECT `order_id` FROM `biz_order` LIMIT 50'],
    ['SELECT order_id FROM biz_order LIMIT 7', 'SELECT `order_id` FROM `biz_order` LIMIT 7'],
    ['SELECT order_id FROM biz_order LIMIT 10, 500', 'SELECT `order_id` FROM `biz_order` LIMIT 10, 50'],
    [
      'SELECT order_id FROM biz_order LIMIT 500 OFFSET 10',
      'SELECT `order_id` FROM `biz_order` LIMIT 50 OFFSET 10',
    ],
  ])('injects or lowers LIMIT: %s', (sql, normalized) => {
    expect(checkSql(sql, 0, source, MAX_ROWS)).toEqual({
      allowed: true,
      normalizedSql: normalized,
      placeholders: 0,
      hiddenOutputs: [],
    });
  });

  it('returns regenerated SQL that passes the policy again unchanged', () => {
    const first = checkSql(
      "SELECT o.order_id FROM biz_order o WHERE o.order_id = 'a--b' AND o.amount > ?",
      1,
      source,
      MAX_ROWS,
    );
    if (!first.allowed) throw new Error(first.message);
    expect(checkSql(first.normalizedSql, 1, source, MAX_ROWS)).toEqual(first);
  });

  it.each([
    [
      'SELECT card_number FROM biz_order',
      'COLUMN_NOT_ALLOWED',
      'Column card_number is not allowlisted for the tables in this query. Allowed columns: biz_order: ' +
        'amount, created_at, order_id, payment_status, updated_at, user_id.',
    ],
    [
      'SELECT o.order_id, p.raw_payload FROM biz_order o INNER JOIN payment_record p ON p.order_id = o.order_id',
      'COLUMN_NOT_ALLOWED',
      'Column payment_record.raw_payload is not allowlisted. Allowed columns: payment_record: channel, ' +
        'created_at, error_code, latency_ms, order_id, payment_id, status, updated_at.',
    ],
    [
      'SELECT password FROM user_account',
      'TABLE_NOT_ALLOWED',
      'Table order_db.user_account is not allowlisted. Allowed tables of data source order_readonly: ' +
        'biz_order, ops_db.incident, payment_record.',
    ],
    [
      'SELECT order_id FROM other_db.biz_order',
      'SCHEMA_NOT_ALLOWED',
      'Schema other_db is not allowlisted for this data source. Allowed tables of data source ' +
        'order_readonly: biz_order, ops_db.incident, payment_record.',
    ],
    [
      'SELECT x.order_id FROM biz_order o',
      'TABLE_NOT_ALLOWED',
      "Unknown table reference x; this query's tables are o (biz_order).",
    ],
    [
      'SELECT COUNT(*) AS card_number FROM biz_order GROUP BY card_number',
      'ALIAS_REFERENCE_NOT_ALLOWED',
      'card_number is a select alias, not a column; an alias may only be a whole ORDER BY item ' +
        '(ORDER BY card_number DESC). In GROUP BY repeat the expression instead ' +
        '(e.g. GROUP BY error_code, HAVING COUNT(*) > ?).',
    ],
    [
      'SELECT order_id FROM biz_order WHERE order_id = "x"',
      'DOUBLE_QUOTES_NOT_ALLOWED',
      "Double quotes are not allowed: write strings in single quotes ('x') and identifiers bare or in backticks.",
    ],
  ])('names what is allowed instead: %s', (sql, code, message) => {
    expect(checkSql(sql, 0, source, MAX_ROWS)).toEqual({ allowed: false, code, message });
  });

  it('lists allowed names in a deterministic, bounded way, never a hidden one', () => {
    const columns = Array.from({ length: 200 }, (_, i) => `c${String(i).padStart(3, '0')}`);
    const wide = {
      ...source,
      schemas: new Map([
        [
          'order_db',
          new Map([['wide', { columns: new Set([...columns].reverse()), hidden: new Set<string>() }]]),
        ],
      ]),
    };
    const result = checkSql('SELECT secret FROM wide', 0, wide, MAX_ROWS);
    if (result.allowed) throw new Error('allowed');
    expect(result.message).toContain('wide: c000, c001, c002');
    expect(result.message).toContain('(140 more)');
    expect(result.message).not.toContain('c060');
    expect(result.message.length).toBeLessThan(700);
    expect(checkSql('SELECT secret FROM wide', 0, wide, MAX_ROWS)).toEqual(result);
  });

  it.each([
    [
      'SELECT error_code, COUNT(*) AS n FROM payment_record GROUP BY error_code HAVING COUNT(*) > ? ORDER BY n DESC',
      1,
      'SELECT `error_code`, COUNT(*) AS `n` FROM `payment_record` GROUP BY `error_code` HAVING COUNT(*) > ? ORDER BY `n` DESC LIMIT 50',
    ],
    [
      'SELECT order_id FROM biz_order WHERE created_at >= NOW() - INTERVAL 30 MINUTE',
      0,
      'SELECT `order_id` FROM `biz_order` WHERE `created_at` >= NOW() - INTERVAL 30 MINUTE LIMIT 50',
    ],
    [
      'SELECT COUNT(*) AS n FROM payment_record WHERE created_at >= CURRENT_TIMESTAMP - INTERVAL 1 DAY',
      0,
      'SELECT COUNT(*) AS `n` FROM `payment_record` WHERE `created_at` >= CURRENT_TIMESTAMP - INTERVAL 1 DAY LIMIT 50',
    ],
    [
      'SELECT COUNT(*) AS n FROM payment_record WHERE created_at >= DATE_SUB(NOW(), INTERVAL 1 HOUR)',
      0,
      'SELECT COUNT(*) AS `n` FROM `payment_record` WHERE `created_at` >= DATE_SUB(NOW(), INTERVAL 1 HOUR) LIMIT 50',
    ],
  ])('runs exactly what it checked: %s', (sql, params, normalized) => {
    expect(checkSql(sql, params, source, MAX_ROWS)).toEqual({
      allowed: true,
      normalizedSql: normalized,
      placeholders: params,
      hiddenOutputs: [],
    });
  });

  it('refuses a deep statement that passes the token caps once parsed, with the same code', () => {
    const sql = `SELECT order_id FROM biz_order WHERE amount = ${Array(150).fill('1').join(' + ')}`;
    expect(sql.split(' ').length).toBeLessThan(MAX_SQL_TOKENS);
    expect(checkSql(sql, 0, source, MAX_ROWS)).toMatchObject({ code: 'SQL_TOO_COMPLEX' });
  });
  it.each([
    [
      'SELECT a FROM t WHERE a = ? COLLATE utf8mb4_bin',
      'SELECT `a` FROM `t` WHERE `a` = ?',
      ['COLLATE', 'UTF8MB4_BIN'],
    ],
    [
      'SELECT CASE WHEN a THEN 1 END COLLATE x AS z FROM t',
      'SELECT CASE WHEN `a` THEN 1 END AS `z` FROM `t`',
      ['COLLATE', 'X'],
    ],
    [
      "SELECT a FROM t WHERE a = 'COLLATE' AND b = 1",
      "SELECT `a` FROM `t` WHERE `a` = 'COLLATE' AND `b` = 1 LIMIT 5",
      [],
    ],
    [
      'SELECT a FROM t o LEFT OUTER JOIN u p ON p.a = o.a',
      'SELECT `a` FROM `t` AS `o` LEFT JOIN `u` AS `p` ON `p`.`a` = `o`.`a`',
      [],
    ],
    ['select `a` from t where a = 1e3', 'SELECT `a` FROM `t` WHERE `a` = 1000', []],
  ])('finds words the parser dropped: %s', (original, regenerated, dropped) => {
    expect(droppedWords(original, regenerated)).toEqual(dropped);
  });

  it('lets a data source allowlist extra functions', () => {
    const withSleep = { ...source, functions: new Set([...source.functions, 'SLEEP']) };
    expect(checkSql('SELECT SLEEP(2) AS s FROM biz_order', 0, withSleep, MAX_ROWS)).toMatchObject({
      allowed: true,
    });
    expect(checkSql('SELECT SLEEP(2) AS s FROM biz_order', 0, source, MAX_ROWS)).toMatchObject({
      code: 'FUNCTION_NOT_ALLOWED',
    });
  });
});

describe('function cost model with functions a data source adds', () => {
  const extended = {
    ...source,
    functions: new Set([...source.functions, 'REPEAT', 'LPAD', 'RPAD', 'SPACE', 'INSERT']),
  };
  it.each([
    ['SELECT REPEAT(order_id, 100) AS r FROM biz_order', 0, true],
    ['SELECT REPEAT(order_id, 101) AS r FROM biz_order', 0, false],
    ['SELECT REPEAT(order_id, ?) AS r FROM biz_order', 1, false],
    ['SELECT REPEAT(order_id, amount) AS r FROM biz_order', 0, false],
    ['SELECT REPEAT(REPEAT(order_id, 10), 10) AS r FROM biz_order', 0, false],
    ['SELECT REPEAT(LPAD(order_id, 20, ?), 10) AS r FROM biz_order', 1, true],
    ['SELECT LPAD(order_id, 1000, ?) AS r FROM biz_order', 1, true],
    ['SELECT RPAD(order_id, 1001, ?) AS r FROM biz_order', 1, false],
    ['SELECT LPAD(order_id, ?, ?) AS r FROM biz_order', 2, false],
    ['SELECT LPAD(REPEAT(order_id, 100), 50, ?) AS r FROM biz_order', 1, true],
    ['SELECT SPACE(10) AS r FROM biz_order', 0, true],
    ['SELECT SPACE(?) AS r FROM biz_order', 1, false],
    ['SELECT INSERT(order_id, 1, 2, ?) AS r FROM biz_order', 1, true],
    ['SELECT INSERT(order_id, 1, 2, REPEAT(?, 100)) AS r FROM biz_order', 1, false],
    ['SELECT CONCAT(REPEAT(order_id, 2), ?) AS r FROM biz_order', 1, false],
  ])('%s (%d params): allowed %p', (sql, params, allowed) => {
    const result = checkSql(sql, params, extended, MAX_ROWS);
    expect(result).toMatchObject(allowed ? { allowed } : { allowed, code: 'FUNCTION_NOT_ALLOWED' });
  });

  it('refuses a function the catalog has no cost model for, even when a source lists it', () => {
    const listed = { ...source, functions: new Set([...source.functions, 'BENCHMARK']) };
    expect(checkSql('SELECT BENCHMARK(10, 1) AS b FROM biz_order', 0, listed, MAX_ROWS)).toMatchObject({
      code: 'FUNCTION_NOT_ALLOWED',
    });
  });
});

describe('checkSql: result columns that read a hidden column', () => {
  const [hiding] = parseMysqlToolsConfig(
    `harness:
  mysql-tools:
    data-sources:
      shop:
        url: mysql://127.0.0.1:3306/shop
        username: \${U}
        password: \${P}
        default-schema: shop
        allowed-schemas:
          shop:
            tables:
              customer:
                columns: [id, name, phone, auth_code, authorized_at]
                hidden-columns: [name]
              orders:
                columns: [id, customer_id, status]
`,
    'allowlist',
    { U: 'u', P: 'p' },
  );
  it.each([
    ['SELECT id, phone FROM customer', [1]],
    ['SELECT phone AS contact FROM customer', [0]],
    ["SELECT CONCAT(phone, '') AS c, id FROM customer", [0]],
    ['SELECT MAX(name) AS n FROM customer', [0]],
    ['SELECT auth_code, authorized_at FROM customer', [0]],
    ['SELECT COUNT(*) AS n FROM customer WHERE phone = ?', []],
    ['SELECT c.PHONE FROM customer c', [0]],
    ["SELECT id, CASE WHEN phone LIKE '138%' THEN 1 ELSE 0 END AS mobile FROM customer", [1]],
    ['SELECT id FROM customer ORDER BY phone', []],
    ['SELECT o.status, c.phone, c.id FROM orders o JOIN customer c ON c.id = o.customer_id', [1]],
  ])('%s hides %j', (sql, hidden) => {
    const params = sql.includes('?') ? ['x'] : [];
    expect(checkSql(sql, params.length, hiding, MAX_ROWS)).toMatchObject({
      allowed: true,
      hiddenOutputs: hidden,
    });
  });
});
