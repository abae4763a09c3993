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

/** The agent's read-only evidence tools, built once from validated configuration; query_logs only with a log backend. */
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
  ) {
    this.lookupKnowledge = lookupKnowledgeTool(knowledge, harness.rag);
    const replayNow = tools.logs.backend === 'jsonl' ? tools.logs.now : null;
    this.queryLogs = logs ? queryLogsTool(logs, harness.logs, replayNow ? () => replayNow : undefined) : null;
    this.queryMysql = queryMysqlTool(tools.mysqlDataSources, executor, harness.mysql);
  }

  /** Every tool the Diagnosis Agent may call. */
  all(): AnyHarnessTool[] {
    return this.queryLogs
      ? [this.lookupKnowledge, this.queryLogs, this.queryMysql]
      : [this.lookupKnowledge, this.queryMysql];
  }
}
