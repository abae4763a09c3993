import { Inject, Injectable } from '@nestjs/common';
import { harnessConfig, HarnessConfig, HarnessToolDefinition } from '@app/harness';
import { toolsConfig, ToolsConfig } from './config/tools.config';
import { MysqlQueryExecutor } from './mysql/mysql-query-executor';
import { queryMysqlTool } from './mysql/query-mysql.tool';

export type AnyHarnessTool = HarnessToolDefinition<Record<string, unknown>, unknown>;

/** The agent's evidence tools, built once from validated configuration. */
@Injectable()
export class EvidenceTools {
  readonly queryMysql: AnyHarnessTool;

  constructor(
    @Inject(toolsConfig.KEY) tools: ToolsConfig,
    @Inject(harnessConfig.KEY) harness: HarnessConfig,
    executor: MysqlQueryExecutor,
  ) {
    this.queryMysql = queryMysqlTool(tools.mysqlDataSources, executor, harness.mysql);
  }

  /** Every tool the Diagnosis Agent may call. */
  all(): AnyHarnessTool[] {
    return [this.queryMysql];
  }
}
