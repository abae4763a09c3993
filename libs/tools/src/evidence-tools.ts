import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AnyHarnessTool, ToolCatalog } from '@app/harness';
import { toolsConfig, ToolsConfig } from './config/tools.config';
import type { EvidenceToolDefinition, EvidenceToolDeps } from './evidence-tool';
import { LOOKUP_KNOWLEDGE_EVIDENCE_TOOL } from './knowledge/lookup-knowledge.evidence-tool';
import { KnowledgeSearchPort } from './knowledge/knowledge-search.port';
import { LogSourcePort } from './logs/log-source.port';
import { QUERY_LOGS_EVIDENCE_TOOL } from './logs/query-logs.evidence-tool';
import { MysqlQueryExecutor } from './mysql/mysql-query-executor';
import { QUERY_MYSQL_EVIDENCE_TOOL } from './mysql/query-mysql.evidence-tool';

/** Every built-in evidence tool: a new one is its folder (config, codes, factory) and one line here. */
export const EVIDENCE_TOOLS: readonly EvidenceToolDefinition[] = [
  LOOKUP_KNOWLEDGE_EVIDENCE_TOOL,
  QUERY_LOGS_EVIDENCE_TOOL,
  QUERY_MYSQL_EVIDENCE_TOOL,
];

/** The built-in tools' config slices, for the module's imports and the start-up check of every slice. */
export const EVIDENCE_TOOL_CONFIGS = EVIDENCE_TOOLS.map((tool) => tool.config);

/**
 * The agent's built-in read-only evidence tools, built once from validated configuration and registered
 * in the catalog; query_logs only with a log backend. The named ones are those callers run directly.
 */
@Injectable()
export class EvidenceTools {
  readonly lookupKnowledge: AnyHarnessTool;
  readonly queryLogs: AnyHarnessTool | null;
  readonly queryMysql: AnyHarnessTool;

  constructor(
    @Inject(toolsConfig.KEY) tools: ToolsConfig,
    knowledge: KnowledgeSearchPort,
    @Inject(LogSourcePort) logs: LogSourcePort | null,
    mysqlExecutor: MysqlQueryExecutor,
    catalog: ToolCatalog,
    moduleRef: ModuleRef,
  ) {
    const deps: EvidenceToolDeps = {
      knowledge,
      logs,
      logBackend: tools.logs,
      mysqlDataSources: tools.mysqlDataSources,
      mysqlExecutor,
      // The slice's provider lives in its ConfigModule.forFeature module, imported by this one.
      limitsOf: <T>(config: { KEY: string | symbol }) =>
        moduleRef.get<unknown, T>(config.KEY, { strict: false }),
    };
    const built = new Map(EVIDENCE_TOOLS.map((definition) => [definition, definition.create(deps)]));
    for (const tool of built.values()) if (tool) catalog.register(tool);
    const required = (definition: EvidenceToolDefinition): AnyHarnessTool => {
      const tool = built.get(definition);
      if (!tool) throw new Error(`${definition.name} is always built`);
      return tool;
    };
    this.lookupKnowledge = required(LOOKUP_KNOWLEDGE_EVIDENCE_TOOL);
    this.queryLogs = built.get(QUERY_LOGS_EVIDENCE_TOOL) ?? null;
    this.queryMysql = required(QUERY_MYSQL_EVIDENCE_TOOL);
  }
}
