import { Inject, Injectable } from '@nestjs/common';
import { harnessConfig, HarnessConfig, HarnessToolDefinition } from '@app/harness';
import { toolsConfig, ToolsConfig } from './config/tools.config';
import { KnowledgeSearchPort } from './knowledge/knowledge-search.port';
import { lookupKnowledgeTool } from './knowledge/lookup-knowledge.tool';
import { LogSourcePort } from './logs/log-source.port';
import { queryLogsTool } from './logs/query-logs.tool';
import { MysqlQueryExecutor } from './mysql/mysql-query-executor';
import { queryMysqlTool } from './mysql/query-mysql.tool';

export type AnyHarnessTool = HarnessToolDefinition<Record<string, unknown>, unknown>;

/** The agent's three read-only evidence tools, built once from validated configuration. */
@Injectable()
export class EvidenceTools {
  readonly lookupKnowledge: AnyHarnessTool;
  readonly queryLogs: AnyHarnessTool;
  readonly queryMysql: AnyHarnessTool;

  constructor(
    @Inject(toolsConfig.KEY) tools: ToolsConfig,
    @Inject(harnessConfig.KEY) harness: HarnessConfig,
    knowledge: KnowledgeSearchPort,
    logs: LogSourcePort,
    executor: MysqlQueryExecutor,
  ) {
    this.lookupKnowledge = lookupKnowledgeTool(knowledge, harness.rag);
    this.queryLogs = queryLogsTool(logs, harness.logs);
    this.queryMysql = queryMysqlTool(tools.mysqlDataSources, executor, harness.mysql);
  }

  /** Every tool the Diagnosis Agent may call. */
  all(): AnyHarnessTool[] {
    return [this.lookupKnowledge, this.queryLogs, this.queryMysql];
  }
}
