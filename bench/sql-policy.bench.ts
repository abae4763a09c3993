import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
