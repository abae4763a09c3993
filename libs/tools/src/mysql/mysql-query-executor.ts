import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { PoolConnection as CoreConnection } from 'mysql2';
import {
  createConnection,
  createPool,
  FieldPacket,
  Pool,
  PoolConnection,
  RowDataPacket,
} from 'mysql2/promise';
import { harnessConfig, HarnessConfig, ToolFailure } from '@app/harness';
import type { MysqlDataSourceConfig } from './mysql-tools-config';
import type { MysqlRawResponse } from './mysql-result-projector';

/** MySQL and MariaDB error numbers of an interrupted or timed-out statement. */
const INTERRUPTED = new Set([1317, 1969, 3024]);
/** Connection-level failures: the data source is down or refuses us. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
]);

function toRawValue(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return { binary_base64: value.toString('base64') };
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * Runs already-checked SELECTs on the business data sources, never on the service database: one small
 * mysql2 pool per data source, sessions set READ ONLY with a server-side statement timeout, prepared
 * statements with bound params, and KILL QUERY when the run is aborted or the timeout passes.
 */
@Injectable()
export class MysqlQueryExecutor implements OnApplicationShutdown {
  private readonly pools = new Map<string, Promise<Pool>>();
  private readonly timeoutMs: number;

  constructor(@Inject(harnessConfig.KEY) config: HarnessConfig) {
    this.timeoutMs = config.mysql.queryTimeoutMs;
  }

  async run(
    source: MysqlDataSourceConfig,
    sql: string,
    params: unknown[],
    signal: AbortSignal,
  ): Promise<MysqlRawResponse> {
    let connection: PoolConnection;
    try {
      const pool = await this.poolFor(source);
      connection = await pool.getConnection();
    } catch (error) {
      throw this.failure(error);
    }
    // The run may have been stopped while a connection was being opened: then nothing is executed.
    if (signal.aborted) {
      connection.release();
      throw signal.reason;
    }
    const threadId = connection.threadId;
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      void this.killQuery(source, threadId);
    };
    const timer = setTimeout(kill, this.timeoutMs);
    signal.addEventListener('abort', kill, { once: true });
    try {
      const [rows, fields] = (await connection.execute<RowDataPacket[]>(sql, params as never[])) as [
        RowDataPacket[],
        FieldPacket[],
      ];
      const columns = fields.map((field) => field.name);
      return {
        data_source: source.id,
        sql,
        params,
        columns,
        rows: rows.map((row) =>
          Object.fromEntries(columns.map((column) => [column, toRawValue(row[column])])),
        ),
      };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw this.failure(error, killed);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      connection.release();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const pools = await Promise.allSettled(this.pools.values());
    await Promise.all(
      pools.map((result) => (result.status === 'fulfilled' ? result.value.end() : undefined)),
    );
    this.pools.clear();
  }

  /** One pool per data source, created on first use; a failed creation is forgotten so a later call can try again. */
  private poolFor(source: MysqlDataSourceConfig): Promise<Pool> {
    let pool = this.pools.get(source.id);
    if (!pool) {
      pool = this.createSourcePool(source);
      this.pools.set(source.id, pool);
      pool.catch(() => this.pools.delete(source.id));
    }
    return pool;
  }

  private async createSourcePool(source: MysqlDataSourceConfig): Promise<Pool> {
    const connection = await createConnection({ ...this.connectionOptions(source), connectTimeout: 5000 });
    let version: string;
    try {
      const [rows] = await connection.query<RowDataPacket[]>('SELECT VERSION() AS version');
      version = String(rows[0]?.version);
    } finally {
      await connection.end();
    }
    // Every session is read-only with a server-side time limit, whatever the account may do. The
    // statements are queued on each new connection before any caller's query can be.
    const session = [
      'SET SESSION TRANSACTION READ ONLY',
      version.includes('MariaDB')
        ? `SET SESSION max_statement_time = ${Math.max(0.001, this.timeoutMs / 1000)}`
        : `SET SESSION max_execution_time = ${Math.ceil(this.timeoutMs)}`,
    ];
    const pool = createPool({
      ...this.connectionOptions(source),
      database: source.database || source.defaultSchema,
      connectionLimit: 4,
      connectTimeout: 5000,
      multipleStatements: false,
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
    pool.on('connection', (pooled) => {
      // mysql2's promise pool re-emits the core (callback) connection here. A session that could not
      // be made read-only is destroyed, so the caller's query fails instead of running unrestricted.
      const core = pooled as unknown as CoreConnection;
      for (const statement of session) {
        core.query(statement, (error: unknown) => {
          if (error) core.destroy();
        });
      }
    });
    return pool;
  }

  private connectionOptions(source: MysqlDataSourceConfig) {
    return { host: source.host, port: source.port, user: source.username, password: source.password };
  }

  /** KILL QUERY from a separate connection: the account may always kill its own statements. */
  private async killQuery(source: MysqlDataSourceConfig, threadId: number): Promise<void> {
    try {
      const connection = await createConnection({ ...this.connectionOptions(source), connectTimeout: 2000 });
      try {
        await connection.query('KILL QUERY ?', [threadId]);
      } finally {
        await connection.end();
      }
    } catch {
      // The statement still ends at the server-side max_statement_time / max_execution_time.
    }
  }

  private failure(error: unknown, killed = false): ToolFailure {
    const { errno, code } = (error ?? {}) as { errno?: number; code?: string };
    if (killed || (errno !== undefined && INTERRUPTED.has(errno))) {
      return new ToolFailure(
        'QUERY_TIMEOUT',
        'The query ran past its time limit and was stopped; narrow it.',
      );
    }
    if (code && UNAVAILABLE_CODES.has(code))
      return new ToolFailure('DATASOURCE_UNAVAILABLE', 'The data source is unavailable.');
    return new ToolFailure('QUERY_FAILED', 'The query failed on the data source.');
  }
}
