import {
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { toolsConfig, ToolsConfig } from '../config/tools.config';
import { DataSourceInspection, inspectDataSource } from './data-source-inspection';
import type { MysqlDataSourceConfig } from './mysql-tools-config';
import { queryMysqlConfig, QueryMysqlConfig } from './query-mysql.config';

/** What is wrong with a business data source: a closed set, shown in /health and the log. */
export type DataSourceProblemKind =
  | 'ACCESS_DENIED'
  | 'UNREACHABLE'
  | 'CONNECT_FAILED'
  | 'NOT_READ_ONLY'
  | 'UNINSPECTED_ROLES'
  | 'UNKNOWN_NAMES'
  | 'SESSION_MISCONFIGURED'
  | 'INSPECTION_FAILED';

export interface DataSourceProblem {
  kind: DataSourceProblemKind;
  /** Safe to log and show: names, grants and settings, never credentials or driver messages. */
  detail: string;
}

export interface DataSourceState {
  state: 'pending' | 'ok' | 'degraded';
  checked_at: string | null;
  problems: DataSourceProblem[];
}

/** The problems an inspection found, in a fixed order; empty when query_mysql can use the source. */
export function dataSourceProblems(inspection: DataSourceInspection): DataSourceProblem[] {
  if (!inspection.reachable) return [{ kind: inspection.cause, detail: inspection.reason }];
  const problems: DataSourceProblem[] = [];
  if (inspection.grants.beyondSelect.length > 0)
    problems.push({
      kind: 'NOT_READ_ONLY',
      detail: `the account is not read-only: ${inspection.grants.beyondSelect.join(', ')}`,
    });
  if (inspection.grants.roles.length > 0)
    problems.push({
      kind: 'UNINSPECTED_ROLES',
      detail: `the account holds role(s) ${inspection.grants.roles.join(', ')} whose privileges were not inspected`,
    });
  if (inspection.missing.length > 0)
    problems.push({
      kind: 'UNKNOWN_NAMES',
      detail: `allowlisted but not found or not readable: ${inspection.missing.join(', ')}`,
    });
  if (inspection.session.length > 0)
    problems.push({
      kind: 'SESSION_MISCONFIGURED',
      detail: `query_mysql cannot pin a session: ${inspection.session.join('; ')}`,
    });
  return problems;
}

/**
 * Inspects every business data source at start-up and every MYSQL_TOOLS_CHECK_INTERVAL_MS (the checks
 * of `npm run doctor`): each problem is logged naming the source and its kind, and /health shows the
 * source as degraded. A business database is evidence, not a dependency of the service: the service
 * still starts and /health stays up, because the other tools and the fallback still answer.
 */
@Injectable()
export class DataSourceHealth implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DataSourceHealth');
  private readonly states = new Map<string, DataSourceState>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    @Inject(toolsConfig.KEY) private readonly tools: ToolsConfig,
    @Inject(queryMysqlConfig.KEY) private readonly config: QueryMysqlConfig,
  ) {
    for (const source of tools.mysqlDataSources)
      this.states.set(source.id, { state: 'pending', checked_at: null, problems: [] });
  }

  onApplicationBootstrap(): void {
    if (this.tools.mysqlDataSources.length === 0) return;
    void this.checkAll();
    if (this.config.checkIntervalMs > 0) {
      this.timer = setInterval(() => void this.checkAll(), this.config.checkIntervalMs);
      // The periodic check never keeps the process alive on its own.
      this.timer.unref();
    }
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Every data source's last known state, by id. */
  snapshot(): Record<string, DataSourceState> {
    return Object.fromEntries(this.states);
  }

  /** One round over all sources; a round still running is awaited instead of started twice. */
  checkAll(): Promise<void> {
    this.running ??= Promise.all(this.tools.mysqlDataSources.map((source) => this.checkOne(source)))
      .then(() => undefined)
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async checkOne(source: MysqlDataSourceConfig): Promise<void> {
    let problems: DataSourceProblem[];
    try {
      problems = dataSourceProblems(await inspectDataSource(source));
    } catch (error) {
      // A statement of the inspection failed after connecting: only the driver's code is safe to name.
      const code = (error as { code?: string }).code ?? 'unknown error';
      problems = [{ kind: 'INSPECTION_FAILED', detail: `the inspection failed (${code})` }];
    }
    const before = this.states.get(source.id);
    this.states.set(source.id, {
      state: problems.length === 0 ? 'ok' : 'degraded',
      checked_at: new Date().toISOString(),
      problems,
    });
    for (const problem of problems)
      this.logger.error(`business data source ${source.id}: ${problem.kind}: ${problem.detail}`);
    if (problems.length === 0 && before?.state === 'degraded')
      this.logger.log(`business data source ${source.id} is usable again`);
  }
}

/** The server's data source checks; a module of its own so the CLIs that load ToolsModule do not start them. */
@Module({
  imports: [ConfigModule.forFeature(toolsConfig), ConfigModule.forFeature(queryMysqlConfig)],
  providers: [DataSourceHealth],
  exports: [DataSourceHealth],
})
export class DataSourceHealthModule {}
