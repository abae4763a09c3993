import { Inject, Injectable } from '@nestjs/common';
import { AnyHarnessTool, ToolCatalog } from '@app/harness';
import { toolsConfig, ToolsConfig } from './config/tools.config';
import { KnowledgeSearchPort } from './knowledge/knowledge-search.port';
import { lookupKnowledgeConfig, LookupKnowledgeConfig } from './knowledge/lookup-knowledge.config';
import { lookupKnowledgeTool } from './knowledge/lookup-knowledge.tool';
import { LOG_TOPICS, LogSourcePort } from './logs/log-source.port';
import { queryLogsConfig, QueryLogsConfig } from './logs/query-logs.config';
import { queryLogsTool } from './logs/query-logs.tool';
import { MysqlQueryExecutor } from './mysql/mysql-query-executor';
import { queryMysqlConfig, QueryMysqlConfig } from './mysql/query-mysql.config';
import { queryMysqlTool } from './mysql/query-mysql.tool';

/**
 * The agent's built-in read-only evidence tools, built once from validated configuration and registered
 * in the catalog; query_logs only with a log backend.
 */
@Injectable()
export class EvidenceTools {
  readonly lookupKnowledge: AnyHarnessTool;
  readonly queryLogs: AnyHarnessTool | null;
  readonly queryMysql: AnyHarnessTool;

  constructor(
    @Inject(toolsConfig.KEY) tools: ToolsConfig,
    @Inject(lookupKnowledgeConfig.KEY) knowledgeLimits: LookupKnowledgeConfig,
    @Inject(queryLogsConfig.KEY) logLimits: QueryLogsConfig,
    @Inject(queryMysqlConfig.KEY) mysqlLimits: QueryMysqlConfig,
    knowledge: KnowledgeSearchPort,
    @Inject(LogSourcePort) logs: LogSourcePort | null,
    executor: MysqlQueryExecutor,
    catalog: ToolCatalog,
  ) {
    this.lookupKnowledge = lookupKnowledgeTool(knowledge, knowledgeLimits);
    const replayNow = tools.logs.backend === 'jsonl' ? tools.logs.now : null;
    this.queryLogs = logs
      ? queryLogsTool(logs, logLimits, replayNow ? () => replayNow : undefined, LOG_TOPICS)
      : null;
    this.queryMysql = queryMysqlTool(tools.mysqlDataSources, executor, mysqlLimits);
    for (const tool of [this.lookupKnowledge, this.queryLogs, this.queryMysql])
      if (tool) catalog.register(tool);
  }
}
