export { ToolsModule } from './tools.module';
export { toolsConfig } from './config/tools.config';
export { lookupKnowledgeConfig } from './knowledge/lookup-knowledge.config';
export { queryLogsConfig } from './logs/query-logs.config';
export { queryMysqlConfig } from './mysql/query-mysql.config';
export { queryMetricsConfig } from './metrics/query-metrics.config';
export { mcpToolsConfig } from './mcp/mcp-tools.config';
export { McpServerConnection } from './mcp/mcp-server-connection';
export type { McpConnectionLimits } from './mcp/mcp-server-connection';
export type { McpServerConfig } from './mcp/mcp-tools.config';
export { loadMysqlToolsConfig, parseMysqlToolsConfig } from './mysql/mysql-tools-config';
export { parseMetricsToolsConfig } from './metrics/metrics-tools-config';
export type { MysqlDataSourceConfig } from './mysql/mysql-tools-config';
export { checkSql } from './mysql/sql-policy';
export { describeColumnRules } from './mysql/allowlist-description';
export { EVIDENCE_TOOL_CONFIGS, EVIDENCE_TOOLS, EvidenceTools } from './evidence-tools';
export { KnowledgeSearchPort } from './knowledge/knowledge-search.port';
export type { KnowledgeIndexReadiness } from './knowledge/knowledge-search.port';
export { MAX_QUERY_CHARS } from './knowledge/lookup-knowledge.tool';
export { LogSourcePort } from './logs/log-source.port';
export type { LogRawResponse, LogTopic } from './logs/log-source.port';
export { projectLogs } from './logs/query-logs-result-projector';
export { projectRagResult } from './knowledge/rag-result-projector';
export { DocumentsService } from './documents/documents.service';
export {
  describeLogFile,
  inspectLogDirectory,
  inspectLogFile,
  logFileWarning,
  unreadableShare,
} from './logs/log-file-inspection';
export type { LogFileReport } from './logs/log-file-inspection';
export { ToolsEnv } from './config/tools.config';
export { FileLogsEnv, fileLogsConfigOf, logRulesOf } from './logs/backends/file/file-logs.env';
export { globToRegExp, parseFileRules, parseTopicGlobs } from './logs/log-files';
export type { LogFileProblem } from './logs/log-files';
export { configProblemsOf } from './doctor-finding';
export type { DoctorFinding } from './doctor-finding';
export { checkLogBackend, LOG_BACKENDS } from './logs/log-backends';
export { checkKnowledgeBackend, KNOWLEDGE_BACKENDS } from './knowledge/knowledge-backends';
export { inspectDataSource, readGrants, missingAllowlistEntries } from './mysql/data-source-inspection';
export type { ConnectFailureCause, DataSourceInspection } from './mysql/data-source-inspection';
export { DataSourceHealth, DataSourceHealthModule, dataSourceProblems } from './mysql/data-source-health';
export type { DataSourceProblem, DataSourceProblemKind, DataSourceState } from './mysql/data-source-health';
export { refuseServiceDatabase } from './mysql/mysql-tools-config';
export { QUERY_MYSQL_FAILURE_CODES } from './mysql/query-mysql.codes';
export type { QueryMysqlFailureCode } from './mysql/query-mysql.codes';
export { QUERY_METRICS_FAILURE_CODES } from './metrics/query-metrics.codes';
export type { QueryMetricsFailureCode } from './metrics/query-metrics.codes';
export { QUERY_LOGS_FAILURE_CODES } from './logs/query-logs.codes';
export type { QueryLogsFailureCode } from './logs/query-logs.codes';
export { LOOKUP_KNOWLEDGE_FAILURE_CODES } from './knowledge/lookup-knowledge.codes';
export type { LookupKnowledgeFailureCode } from './knowledge/lookup-knowledge.codes';
export { MCP_TOOL_FAILURE_CODES } from './mcp/mcp-evidence-tool.codes';
export type { McpToolFailureCode } from './mcp/mcp-evidence-tool.codes';
export { renderFunctionCatalog } from './mysql/function-catalog';
