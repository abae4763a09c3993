import { z } from 'zod';
import { HarnessToolDefinition, ToolFailure } from '@app/harness';
import { argOf, asRecord } from '../projection/record-fields';
import { describeAllowlist } from './allowlist-description';
import { MysqlQueryExecutor } from './mysql-query-executor';
import { MysqlRawResponse, projectMysqlResult } from './mysql-result-projector';
import type { MysqlDataSourceConfig } from './mysql-tools-config';
import { checkSql, MAX_SQL_LENGTH } from './sql-policy';
import type { QueryMysqlConfig } from './query-mysql.config';
import { QUERY_MYSQL_FAILURE_CODES, QueryMysqlFailureCode } from './query-mysql.codes';

const scalar = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);

/** The arguments; data_source names the configured ids, so the model never sees a made-up example. */
export function queryMysqlSchema(sourceIds: readonly string[]) {
  return z.object({
    data_source: z
      .string()
      .min(1)
      .max(64)
      .describe(
        sourceIds.length > 0
          ? `Logical data source id, one of: ${sourceIds.join(', ')}.`
          : 'Logical data source id (none is configured).',
      ),
    sql: z
      .string()
      .min(1)
      .max(MAX_SQL_LENGTH)
      .describe('One parameterised SELECT with explicit columns; use ? for every value.'),
    params: z.array(scalar).max(50).default([]).describe('Values for the ? placeholders, in order.'),
  });
}
export type QueryMysqlArgs = z.infer<ReturnType<typeof queryMysqlSchema>>;

const RULES = [
  'Use it for the current state of specific records or small aggregates. Name columns explicitly, bind every value with ?,',
  'use only INNER/LEFT JOIN, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, COUNT/SUM/AVG/MIN/MAX and time windows',
  '(NOW() - INTERVAL 30 MINUTE, DATE_SUB, CURRENT_TIMESTAMP). A select alias may only be a whole ORDER BY item',
  '(ORDER BY n DESC); in GROUP BY/HAVING repeat the column or expression. With a JOIN, qualify every column',
  '(o.order_id, p.status). Strings take single quotes, never double.',
  'Not for logs, documents, schema discovery (SHOW, DESCRIBE, information_schema) or any write.',
  '查询已配置的业务库（只读、参数化 SELECT），用于实时数据核对。',
].join(' ');

/**
 * The tool's description from the configured data sources only: which sources exist and exactly the
 * allowlisted tables and columns, so nothing assumes a particular business (docs/architecture.md).
 */
export function describeQueryMysql(sources: readonly MysqlDataSourceConfig[]): string {
  return (
    [
      'Run one read-only, parameterised SELECT on the allowlisted tables of a configured business database (listed below).',
      RULES,
    ].join(' ') + `\n${describeAllowlist(sources)}`
  );
}

/** The query_mysql evidence tool: policy first, then the read-only executor, then the projector. */
export function queryMysqlTool(
  sources: readonly MysqlDataSourceConfig[],
  executor: MysqlQueryExecutor,
  limits: QueryMysqlConfig,
): HarnessToolDefinition<QueryMysqlArgs, MysqlRawResponse> {
  const byId = new Map(sources.map((source) => [source.id, source]));
  return {
    name: 'query_mysql',
    description: describeQueryMysql(sources),
    schema: queryMysqlSchema([...byId.keys()].sort()),
    readOnly: true,
    failureCodes: QUERY_MYSQL_FAILURE_CODES,
    countedList: 'rows',
    async execute(args, signal) {
      const source = byId.get(args.data_source);
      if (!source) {
        throw new ToolFailure<QueryMysqlFailureCode>(
          'UNKNOWN_DATA_SOURCE',
          `Unknown data_source; use one of: ${[...byId.keys()].join(', ')}.`,
        );
      }
      const policy = checkSql(args.sql, args.params.length, source, limits.maxRows);
      if (!policy.allowed) throw new ToolFailure<QueryMysqlFailureCode>(policy.code, policy.message);
      const raw = await executor.run(source, policy.normalizedSql, args.params, signal);
      return { ...raw, hidden_columns: policy.hiddenOutputs.flatMap((index) => raw.columns[index] ?? []) };
    },
    project: (raw) => projectMysqlResult(raw, limits),
    summarizeArgs: (args) => ({
      // Stored and served by the trace API: a configured id or `other`, never the model's text.
      data_source: byId.has(args.data_source) ? args.data_source : 'other',
      sql_chars: args.sql.length,
      param_count: args.params.length,
    }),
    label: '业务数据库 / business database',
    statusDetail: (args) => {
      const source = argOf(args, 'data_source');
      return typeof source === 'string' && byId.has(source) ? source : undefined;
    },
    evidenceOf: (result) => {
      const scope = asRecord(result.scope);
      return {
        source_type: 'MYSQL',
        source: String(scope.data_source ?? 'mysql'),
        scope: `${String(scope.sql ?? '')} params=${JSON.stringify(scope.params ?? [])}`,
        values: { columns: result.columns ?? [], rows: result.rows ?? [] },
        demo: false,
      };
    },
  };
}
