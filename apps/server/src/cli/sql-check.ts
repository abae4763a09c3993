import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkSql, loadMysqlToolsConfig, MysqlDataSourceConfig, queryMysqlConfig } from '@app/tools';

/**
 * `npm run -s sql-check -- --config FILE --data-source ID (--sql "..." [--params '[..]'] | --batch FILE)`
 * Checks SQL with exactly the policy query_mysql uses and prints one JSON line per statement (with
 * `warnings` when an allowed statement has a trap, e.g. two result columns of one name).
 * Exit: 0 allowed (batch: always, when usage and config are right), 1 rejected, 2 usage or config error.
 */
class UsageError extends Error {}

const USAGE =
  'usage: sql-check --config FILE --data-source ID (--sql "SELECT ..." [--params \'["order-123"]\'] | --batch FILE)';

function parseParams(raw: unknown): unknown[] {
  if (
    !Array.isArray(raw) ||
    !raw.every((value) => value === null || ['string', 'number', 'boolean'].includes(typeof value))
  ) {
    throw new UsageError('params must be a JSON array of strings, numbers, booleans or null');
  }
  return raw;
}

function line(
  source: MysqlDataSourceConfig,
  maxRows: number,
  sql: unknown,
  params: unknown[],
): { allowed: boolean; text: string } {
  if (typeof sql !== 'string') {
    return {
      allowed: false,
      text: JSON.stringify({
        allowed: false,
        code: 'INVALID_INPUT',
        message: 'sql must be a string',
        normalized_sql: null,
      }),
    };
  }
  const result = checkSql(sql, params.length, source, maxRows);
  const output = result.allowed
    ? {
        allowed: true,
        code: 'ALLOWED',
        message: 'The statement is allowed.',
        normalized_sql: result.normalizedSql,
        // 1-based, as a reader counts the select list: these result columns come back [REDACTED].
        ...(result.hiddenOutputs.length > 0
          ? { hidden_result_columns: result.hiddenOutputs.map((index) => index + 1) }
          : {}),
        ...(result.warnings ? { warnings: result.warnings } : {}),
      }
    : { allowed: false, code: result.code, message: result.message, normalized_sql: null };
  return { allowed: result.allowed, text: JSON.stringify(output) };
}

function main(): number {
  const { values } = parseArgs({
    options: {
      config: { type: 'string' },
      'data-source': { type: 'string' },
      sql: { type: 'string' },
      params: { type: 'string' },
      batch: { type: 'string' },
    },
    strict: true,
  });
  if (
    !values.config ||
    !values['data-source'] ||
    (values.sql === undefined) === (values.batch === undefined)
  ) {
    throw new UsageError(USAGE);
  }
  const sources = loadMysqlToolsConfig(values.config, process.env, { resolveSecrets: false });
  const source = sources.find((candidate) => candidate.id === values['data-source']);
  if (!source)
    throw new UsageError(`data source ${values['data-source']} is not defined in ${values.config}`);
  const { maxRows } = queryMysqlConfig();

  if (values.sql !== undefined) {
    let params: unknown[] = [];
    if (values.params !== undefined) {
      try {
        params = parseParams(JSON.parse(values.params));
      } catch (error) {
        throw new UsageError(error instanceof UsageError ? error.message : '--params must be a JSON array');
      }
    }
    const result = line(source, maxRows, values.sql, params);
    process.stdout.write(`${result.text}\n`);
    return result.allowed ? 0 : 1;
  }

  let batch: string;
  try {
    batch = readFileSync(values.batch!, 'utf8');
  } catch {
    throw new UsageError(`cannot read batch file ${values.batch}`);
  }
  for (const raw of batch.split('\n').filter((text) => text.trim() !== '')) {
    let entry: { sql?: unknown; params?: unknown };
    let params: unknown[];
    try {
      entry = JSON.parse(raw) as { sql?: unknown; params?: unknown };
      params = parseParams(entry.params ?? []);
    } catch (error) {
      const message =
        error instanceof UsageError
          ? error.message
          : 'the line is not a JSON object {"sql": ..., "params": [...]}';
      process.stdout.write(
        `${JSON.stringify({ allowed: false, code: 'INVALID_INPUT', message, normalized_sql: null })}\n`,
      );
      continue;
    }
    process.stdout.write(`${line(source, maxRows, entry.sql, params).text}\n`);
  }
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  process.stderr.write(`sql-check: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}
