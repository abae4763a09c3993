export { ToolsModule } from './tools.module';
export { toolsConfig } from './config/tools.config';
export type { ToolsConfig } from './config/tools.config';
export {
  DEFAULT_ALLOWED_FUNCTIONS,
  loadMysqlToolsConfig,
  parseMysqlToolsConfig,
} from './mysql/mysql-tools-config';
export type { MysqlDataSourceConfig } from './mysql/mysql-tools-config';
export { checkSql, MAX_SQL_LENGTH, SQL_REJECTION_CODES } from './mysql/sql-policy';
export type { SqlPolicyResult, SqlRejectionCode } from './mysql/sql-policy';
export { EvidenceTools } from './evidence-tools';
export type { AnyHarnessTool } from './evidence-tools';
export { MysqlQueryExecutor } from './mysql/mysql-query-executor';
export { projectMysqlResult } from './mysql/mysql-result-projector';
export type { MysqlRawResponse } from './mysql/mysql-result-projector';
export { queryMysqlSchema } from './mysql/query-mysql.tool';
export { redactText } from './projection/redaction';
