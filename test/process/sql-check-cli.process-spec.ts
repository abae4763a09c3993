import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '../support/test-timeouts';

interface CorpusEntry {
  sql: string;
  params: unknown[];
  expect: string;
  class?: string;
}

const CONFIG = 'test/fixtures/sql-policy-allowlist.yaml';
const corpus = JSON.parse(readFileSync('test/fixtures/sql-policy-corpus.json', 'utf8')) as CorpusEntry[];

/** Runs the built CLI exactly as an allowlist author would, without any database credentials set. */
function sqlCheck(args: string[]) {
  const env = { ...process.env };
  delete env.ORDER_MYSQL_USERNAME;
  delete env.ORDER_MYSQL_PASSWORD;
  return spawnSync(process.execPath, ['dist/apps/server/src/cli/sql-check.js', ...args], {
    encoding: 'utf8',
    env,
    timeout: scaled(30_000),
  });
}

describe('sql-check CLI (built)', () => {
  it('checks the whole security corpus in batch mode, one JSON line per statement in order', () => {
    const batch = join(mkdtempSync(join(tmpdir(), 'sql-check-')), 'corpus.jsonl');
    writeFileSync(
      batch,
      corpus.map((entry) => JSON.stringify({ sql: entry.sql, params: entry.params })).join('\n'),
    );
    const result = sqlCheck(['--config', CONFIG, '--data-source', 'order_readonly', '--batch', batch]);
    expect(result.status).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { allowed: boolean; code: string });
    expect(lines.map((line) => line.code)).toEqual(corpus.map((entry) => entry.expect));
    expect(lines.filter((line) => line.allowed)).toHaveLength(
      corpus.filter((entry) => entry.expect === 'ALLOWED').length,
    );
  });

  it.each([
    ['alias-shadowing', 30, 5],
    ['ansi-quotes', 15, 1],
    ['time-window', 2, 14],
    ['collate', 7, 1],
    ['complexity', 7, 3],
    ['quoted-function', 4, 0],
    ['cross-join', 7, 2],
    ['scalar-functions', 0, 8],
    ['column-case', 0, 1],
  ])('%s: refuses every attack (%d) and allows the legitimate statements (%d)', (name, refused, allowed) => {
    const entries = corpus.filter((entry) => entry.class === name);
    expect(entries.filter((entry) => entry.expect !== 'ALLOWED')).toHaveLength(refused);
    expect(entries.filter((entry) => entry.expect === 'ALLOWED')).toHaveLength(allowed);
    const batch = join(mkdtempSync(join(tmpdir(), 'sql-check-')), `${name}.jsonl`);
    writeFileSync(
      batch,
      entries.map((entry) => JSON.stringify({ sql: entry.sql, params: entry.params })).join('\n'),
    );
    const result = sqlCheck(['--config', CONFIG, '--data-source', 'order_readonly', '--batch', batch]);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { allowed: boolean; code: string });
    expect(lines.map((line, index) => [entries[index].sql, line.code])).toEqual(
      entries.map((entry) => [entry.sql, entry.expect]),
    );
    expect(lines.filter((line) => line.allowed)).toHaveLength(allowed);
  });

  it('exits 0 with the normalized SQL when allowed and 1 with a code when rejected', () => {
    const allowed = sqlCheck([
      '--config',
      CONFIG,
      '--data-source',
      'order_readonly',
      '--sql',
      'SELECT order_id FROM biz_order WHERE order_id = ?',
      '--params',
      '["order-123"]',
    ]);
    expect(allowed.status).toBe(0);
    expect(JSON.parse(allowed.stdout)).toEqual({
      allowed: true,
      code: 'ALLOWED',
      message: 'The statement is allowed.',
      normalized_sql: 'SELECT `order_id` FROM `order_db`.`biz_order` WHERE `order_id` = ? LIMIT 50',
    });
    const rejected = sqlCheck([
      '--config',
      CONFIG,
      '--data-source',
      'order_readonly',
      '--sql',
      'DELETE FROM biz_order',
    ]);
    expect(rejected.status).toBe(1);
    expect(JSON.parse(rejected.stdout)).toMatchObject({
      allowed: false,
      code: 'WRITE_NOT_ALLOWED',
      normalized_sql: null,
    });
  });

  it('checks red-team corpus 4 (scope, cost, result names) in batch mode', () => {
    const corpus4 = JSON.parse(
      readFileSync('test/fixtures/sql-policy-corpus-4.json', 'utf8'),
    ) as CorpusEntry[];
    const batch = join(mkdtempSync(join(tmpdir(), 'sql-check-')), 'corpus-4.jsonl');
    writeFileSync(
      batch,
      corpus4.map((entry) => JSON.stringify({ sql: entry.sql, params: entry.params })).join('\n'),
    );
    const result = sqlCheck(['--config', CONFIG, '--data-source', 'order_readonly', '--batch', batch]);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { code: string });
    expect(lines.map((line, index) => [corpus4[index].sql, line.code])).toEqual(
      corpus4.map((entry) => [entry.sql, entry.expect]),
    );
  });

  it('warns when result columns share a name, and still allows the statement', () => {
    const result = sqlCheck([
      '--config',
      CONFIG,
      '--data-source',
      'order_readonly',
      '--sql',
      'SELECT o.order_id, p.order_id FROM biz_order o INNER JOIN payment_record p ON p.order_id = o.order_id',
    ]);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      allowed: true,
      warnings: [expect.stringMatching(/^DUPLICATE_RESULT_NAME: 2 result columns are named order_id/)],
    });
  });

  it('reports a bad batch line in place and goes on', () => {
    const batch = join(mkdtempSync(join(tmpdir(), 'sql-check-')), 'mixed.jsonl');
    writeFileSync(
      batch,
      [
        'not json',
        JSON.stringify({ sql: 'SELECT order_id FROM biz_order' }),
        JSON.stringify({ sql: 'SELECT 1', params: [{}] }),
      ].join('\n'),
    );
    const result = sqlCheck(['--config', CONFIG, '--data-source', 'order_readonly', '--batch', batch]);
    expect(result.status).toBe(0);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text).code),
    ).toEqual(['INVALID_INPUT', 'ALLOWED', 'INVALID_INPUT']);
  });

  it.each([
    [['--config', CONFIG, '--sql', 'SELECT 1'], 'usage'],
    [['--config', CONFIG, '--data-source', 'order_readonly'], 'usage'],
    [['--config', CONFIG, '--data-source', 'nope', '--sql', 'SELECT 1'], 'data source nope is not defined'],
    [
      ['--config', 'missing.yaml', '--data-source', 'x', '--sql', 'SELECT 1'],
      'cannot read the allowlist file missing.yaml',
    ],
    [
      ['--config', CONFIG, '--data-source', 'order_readonly', '--sql', 'SELECT 1', '--params', '{"a":1}'],
      'params must be a JSON array',
    ],
    [['--config', CONFIG, '--data-source', 'order_readonly', '--bogus'], 'Unknown option'],
  ])('exits 2 on usage or config errors (%p)', (args, message) => {
    const result = sqlCheck(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });
});
