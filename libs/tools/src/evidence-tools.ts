import { Inject, Injectable } from '@nestjs/common';
import { AnyHarnessTool, harnessConfig, HarnessConfig, ToolCatalog } from '@app/harness';
import { toolsConfig, ToolsConfig } from './config/tools.config';
import { KnowledgeSearchPort } from './knowledge/knowledge-search.port';
import { lookupKnowledgeTool } from './knowledge/lookup-knowledge.tool';
import { LogSourcePort } from './logs/log-source.port';
import { queryLogsTool } from './logs/query-logs.tool';
import { MysqlQueryExecutor } from './mysql/mysql-query-executor';
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
    @Inject(harnessConfig.KEY) harness: HarnessConfig,
    knowledge: KnowledgeSearchPort,
    @Inject(LogSourcePort) logs: LogSourcePort | null,
    executor: MysqlQueryExecutor,
    catalog: ToolCatalog,
  ) {
    this.lookupKnowledge = lookupKnowledgeTool(knowledge, harness.rag);
    const replayNow = tools.logs.backend === 'jsonl' ? tools.logs.now : null;
    this.queryLogs = logs ? queryLogsTool(logs, harness.logs, replayNow ? () => replayNow : undefined) : null;
    this.queryMysql = queryMysqlTool(tools.mysqlDataSources, executor, harness.mysql);
    for (const tool of [this.lookupKnowledge, this.queryLogs, this.queryMysql])
      if (tool) catalog.register(tool);
  }
}
