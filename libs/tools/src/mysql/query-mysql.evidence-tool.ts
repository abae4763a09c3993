import type { EvidenceToolDefinition } from '../evidence-tool';
import { queryMysqlConfig } from './query-mysql.config';
import { queryMysqlTool } from './query-mysql.tool';

export const QUERY_MYSQL_EVIDENCE_TOOL: EvidenceToolDefinition = {
  name: 'query_mysql',
  summary: 'one read-only SELECT on an allowlisted business database (MYSQL_TOOLS_CONFIG)',
  config: queryMysqlConfig,
  create: (deps) =>
    queryMysqlTool(deps.mysqlDataSources, deps.mysqlExecutor, deps.limitsOf(queryMysqlConfig)),
};
