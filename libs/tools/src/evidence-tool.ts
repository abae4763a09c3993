import type { ConfigFactoryKeyHost } from '@nestjs/config';
import type { AnyHarnessTool } from '@app/harness';
import type { KnowledgeSearchPort } from './knowledge/knowledge-search.port';
import type { ConfiguredLogBackend } from './logs/log-backend';
import type { LogSourcePort } from './logs/log-source.port';
import type { MysqlQueryExecutor } from './mysql/mysql-query-executor';
import type { MysqlDataSourceConfig } from './mysql/mysql-tools-config';

/** What the service gives the built-in evidence tools when it builds them, once at start-up. */
export interface EvidenceToolDeps {
  knowledge: KnowledgeSearchPort;
  /** The LOG_BACKEND's source, null when it offers no log tool. */
  logs: LogSourcePort | null;
  logBackend: ConfiguredLogBackend;
  mysqlDataSources: readonly MysqlDataSourceConfig[];
  mysqlExecutor: MysqlQueryExecutor;
  /** A tool's config slice as the application holds it (a spec's override included). */
  limitsOf<T>(config: ConfigFactoryKeyHost<T>): T;
}

/**
 * One built-in evidence tool (docs/backends.md): its folder owns its config slice, failure codes and
 * factory; one line in EVIDENCE_TOOLS registers it in the catalog.
 */
export interface EvidenceToolDefinition {
  readonly name: string;
  /** What it reads, one sentence: its line in the generated docs/backends.md. */
  readonly summary: string;
  /**
   * Its own config slice: the synchronous `registerAs` factory of its limits (validated at start-up before
   * any module is created, listed in the configuration reference).
   */
  readonly config: (() => Record<string, unknown>) & { readonly KEY: string | symbol };
  /** The tool, or null when its source is not configured (query_logs with LOG_BACKEND=none). */
  create(deps: EvidenceToolDeps): AnyHarnessTool | null;
}
