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
export { BUSINESS_SQL_MODE, MysqlQueryExecutor } from './mysql/mysql-query-executor';
export { projectMysqlResult } from './mysql/mysql-result-projector';
export type { MysqlRawResponse } from './mysql/mysql-result-projector';
export { queryMysqlSchema } from './mysql/query-mysql.tool';
export { redactText } from './projection/redaction';
export { KnowledgeSearchPort } from './knowledge/knowledge-search.port';
export type { KnowledgeHit } from './knowledge/knowledge-search.port';
export { PyRagKnowledgeSearch } from './knowledge/pyrag-knowledge-search';
export { LOOKUP_KNOWLEDGE_DESCRIPTION, MAX_QUERY_CHARS } from './knowledge/lookup-knowledge.tool';
export { LogSourcePort, LOG_TOPICS } from './logs/log-source.port';
export type { LogEvent, LogRawResponse, LogTopic } from './logs/log-source.port';
export { projectLogs } from './logs/query-logs-result-projector';
export { projectRagResult } from './knowledge/rag-result-projector';
export { DocumentsService } from './documents/documents.service';
