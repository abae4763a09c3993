import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMysqlToolsConfig } from './mysql-tools-config';
import { checkSql, SQL_REJECTION_CODES } from './sql-policy';

interface CorpusEntry {
  sql: string;
  params: unknown[];
  expect: string;
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

  it('gives messages that name the problem without revealing the allowlist', () => {
    const result = checkSql('SELECT card_number FROM biz_order', 0, source, MAX_ROWS);
    expect(result).toEqual({
      allowed: false,
      code: 'COLUMN_NOT_ALLOWED',
      message: 'Column card_number is not allowlisted for the tables in this query.',
    });
    expect(JSON.stringify(result)).not.toContain('payment_status');
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
