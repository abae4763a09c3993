import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { Connection as CoreConnection } from 'mysql2';
import {
  createConnection,
  createPool,
  FieldPacket,
  Pool,
  PoolConnection,
  RowDataPacket,
} from 'mysql2/promise';
import { ToolFailure } from '@app/harness';
import type { MysqlDataSourceConfig } from './mysql-tools-config';
import type { MysqlRawResponse } from './mysql-result-projector';
import { queryMysqlConfig, QueryMysqlConfig } from './query-mysql.config';
import type { QueryMysqlFailureCode } from './query-mysql.codes';

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

/**
 * The sql_mode of every business session. The SQL policy reads statements the default MySQL way; modes
 * such as ANSI_QUOTES ("x" is an identifier), PIPES_AS_CONCAT, NO_BACKSLASH_ESCAPES, HIGH_NOT_PRECEDENCE
 * or IGNORE_SPACE would make the server read the checked text differently, so the mode is pinned
 * instead of inherited from the server's global setting. Valid on MariaDB and MySQL 8.
 */
export const BUSINESS_SQL_MODE = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

/** The server's answer to `SELECT @@SESSION.sql_mode` must list exactly the pinned modes. */
export function sqlModeIsPinned(reported: unknown): boolean {
  if (typeof reported !== 'string') return false;
  const modes = (text: string) =>
    text
      .split(',')
      .map((mode) => mode.trim().toUpperCase())
      .filter(Boolean)
      .sort()
      .join(',');
  return modes(reported) === modes(BUSINESS_SQL_MODE);
}

class SessionNotRestricted extends Error {}

function toRawValue(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return { binary_base64: value.toString('base64') };
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * Runs already-checked SELECTs on the business data sources, never on the service database: one small
 * mysql2 pool per data source, sessions set READ ONLY with a pinned sql_mode and a server-side statement
 * timeout (verified before a connection's first query), prepared statements with bound params, and
 * KILL QUERY when the run is aborted or the timeout passes.
 */
@Injectable()
export class MysqlQueryExecutor implements OnApplicationShutdown {
  private readonly pools = new Map<string, Promise<Pool>>();
  /** Session statements per pool, run once on each new connection before its first caller query. */
  private readonly sessionStatements = new WeakMap<Pool, string[]>();
  /** Core connections whose session was set up and verified; a pooled connection keeps its session. */
  private readonly restricted = new WeakSet<CoreConnection>();
  private readonly timeoutMs: number;

  constructor(@Inject(queryMysqlConfig.KEY) config: QueryMysqlConfig) {
    this.timeoutMs = config.queryTimeoutMs;
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
      await this.restrictSession(pool, connection);
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
    // Every session is read-only, with the pinned sql_mode and a server-side time limit, whatever the
    // account or the server's globals would give.
    this.sessionStatements.set(pool, [
      `SET SESSION sql_mode = '${BUSINESS_SQL_MODE}'`,
      'SET SESSION TRANSACTION READ ONLY',
      version.includes('MariaDB')
        ? `SET SESSION max_statement_time = ${Math.max(0.001, this.timeoutMs / 1000)}`
        : `SET SESSION max_execution_time = ${Math.ceil(this.timeoutMs)}`,
    ]);
    return pool;
  }

  /**
   * Sets up a connection's session before its first caller query and checks that the server took the
   * sql_mode; a session that could not be restricted is destroyed, so nothing runs on it (fail closed).
   */
  private async restrictSession(pool: Pool, connection: PoolConnection): Promise<void> {
    const core = connection.connection as unknown as CoreConnection;
    if (this.restricted.has(core)) return;
    try {
      for (const statement of this.sessionStatements.get(pool) ?? []) await connection.query(statement);
      const [rows] = await connection.query<RowDataPacket[]>('SELECT @@SESSION.sql_mode AS sql_mode');
      if (!sqlModeIsPinned(rows[0]?.sql_mode)) throw new SessionNotRestricted();
    } catch (error) {
      connection.destroy();
      throw error instanceof SessionNotRestricted ? error : new SessionNotRestricted();
    }
    this.restricted.add(core);
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
    if (error instanceof SessionNotRestricted) {
      return new ToolFailure<QueryMysqlFailureCode>(
        'DATASOURCE_UNAVAILABLE',
        'The data source session could not be restricted; nothing was run.',
      );
    }
    const { errno, code } = (error ?? {}) as { errno?: number; code?: string };
    if (killed || (errno !== undefined && INTERRUPTED.has(errno))) {
      return new ToolFailure<QueryMysqlFailureCode>(
        'QUERY_TIMEOUT',
        'The query ran past its time limit and was stopped; narrow it.',
      );
    }
    if (code && UNAVAILABLE_CODES.has(code))
      return new ToolFailure<QueryMysqlFailureCode>(
        'DATASOURCE_UNAVAILABLE',
        'The data source is unavailable.',
      );
    return new ToolFailure<QueryMysqlFailureCode>('QUERY_FAILED', 'The query failed on the data source.');
  }
}
