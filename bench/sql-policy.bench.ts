import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'node-sql-parser';
import { checkSql, parseMysqlToolsConfig } from '@app/tools';
import { reportBench } from './support/bench-results';

/** Policy validation throughput over the mixed security corpus (hostile and legitimate statements). */
interface CorpusEntry {
  sql: string;
  params: unknown[];
}

const fixtures = join(process.cwd(), 'test', 'fixtures');
const corpus = JSON.parse(readFileSync(join(fixtures, 'sql-policy-corpus.json'), 'utf8')) as CorpusEntry[];
const [source] = parseMysqlToolsConfig(
  readFileSync(join(fixtures, 'sql-policy-allowlist.yaml'), 'utf8'),
  'allowlist',
  {},
  { resolveSecrets: false },
);
const ROUNDS = Number(process.env.BENCH_SQL_ROUNDS ?? 20);

for (const entry of corpus) checkSql(entry.sql, entry.params.length, source, 50);
const started = performance.now();
let allowed = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  for (const entry of corpus) if (checkSql(entry.sql, entry.params.length, source, 50).allowed) allowed += 1;
}
const seconds = (performance.now() - started) / 1000;
const statements = ROUNDS * corpus.length;

reportBench('sql_policy_throughput', {
  corpus_statements: corpus.length,
  statements_checked: statements,
  allowed_per_round: allowed / ROUNDS,
  statements_per_second: statements / seconds,
  mean_us_per_statement: (seconds * 1e6) / statements,
});

/**
 * Statements that are cheap to write and costly to parse. `unguarded_parse_ms` is what parsing alone
 * costs (what the policy paid before the token, nesting and AST caps); `policy_ms` is checkSql now.
 */
const HOSTILE: [string, string][] = [
  ['not_x1900', `SELECT order_id FROM biz_order WHERE ${'NOT '.repeat(1900)}order_id = 'x'`],
  ['bang_x3900', `SELECT order_id FROM biz_order WHERE ${'!'.repeat(3900)}(order_id = 'x')`],
  ['parens_x390', `SELECT order_id FROM biz_order WHERE ${'('.repeat(390)}order_id = 'x'${')'.repeat(390)}`],
  ['or_chain_x550', `SELECT order_id FROM biz_order WHERE ${Array(550).fill('amount = 1').join(' OR ')}`],
  ['plus_chain_x150', `SELECT order_id FROM biz_order WHERE amount = ${Array(150).fill('1').join(' + ')}`],
];
const parser = new Parser();
const timed = (work: () => unknown, rounds = 5): number => {
  work();
  const start = performance.now();
  for (let i = 0; i < rounds; i += 1) work();
  return (performance.now() - start) / rounds;
};
const figures: Record<string, number | string> = {};
for (const [name, sql] of HOSTILE) {
  figures[`${name}_chars`] = sql.length;
  figures[`${name}_unguarded_parse_ms`] = timed(() => {
    try {
      parser.astify(sql, { database: 'MySQL' });
    } catch {
      // Some shapes do not parse at all; the time until the parser gives up is what counts.
    }
  });
  const result = checkSql(sql, 0, source, 50);
  figures[`${name}_policy_ms`] = timed(() => checkSql(sql, 0, source, 50));
  figures[`${name}_code`] = result.allowed ? 'ALLOWED' : result.code;
}
reportBench('sql_policy_parse_cost', figures);
