import { SQL_REJECTION_CODES } from './sql-policy';

/**
 * The ToolFailure codes query_mysql may return to the agent, beside the boundary's own (TOOL_TIMEOUT, ...):
 * a closed set, so a failure with a code not listed here does not compile.
 */
export const QUERY_MYSQL_FAILURE_CODES = [
  ...SQL_REJECTION_CODES,
  'UNKNOWN_DATA_SOURCE',
  'QUERY_TIMEOUT',
  'DATASOURCE_UNAVAILABLE',
  'DATASOURCE_MISCONFIGURED',
  'QUERY_FAILED',
] as const;
export type QueryMysqlFailureCode = (typeof QUERY_MYSQL_FAILURE_CODES)[number];
