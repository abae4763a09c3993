import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { escape } from 'mysql2';
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
import { ConnectFailureCause, connectFailureCause } from './connect-failure';

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

/** The cause of DATASOURCE_UNAVAILABLE as the tool result and the trace state it. */
export const UNAVAILABLE_TEXT: Record<ConnectFailureCause, string> = {
  ACCESS_DENIED: 'access denied (the server refused the account or its database)',
  UNREACHABLE: 'unreachable (the server did not answer)',
  CONNECT_FAILED: 'the connection failed',
};

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

/** The character set every business session must report after the handshake, end to end. */
export const BUSINESS_CHARSET = 'utf8mb4';

export interface ReportedSession {
  sql_mode?: unknown;
  character_set_client?: unknown;
  character_set_connection?: unknown;
  character_set_results?: unknown;
}

/**
 * What is wrong with a session as the server reports it, naming each setting; empty when it is pinned.
 * Bound values are escaped by the client with backslashes in utf8mb4, which is only what the server reads
 * when the session has the pinned sql_mode (no NO_BACKSLASH_ESCAPES) and utf8mb4 on every leg: a
 * GBK/Big5/SJIS leg can turn an escaping backslash into half of a multi-byte character.
 */
export function sessionProblems(reported: ReportedSession): string[] {
  const problems: string[] = [];
  if (!sqlModeIsPinned(reported.sql_mode))
    problems.push(`sql_mode is '${String(reported.sql_mode)}', not the pinned '${BUSINESS_SQL_MODE}'`);
  for (const key of ['character_set_client', 'character_set_connection', 'character_set_results'] as const) {
    const value = reported[key];
    if (typeof value !== 'string' || value.toLowerCase() !== BUSINESS_CHARSET)
      problems.push(
        `${key} is ${value === null || value === undefined ? 'NULL' : String(value)}, not ${BUSINESS_CHARSET}` +
          (key === 'character_set_client'
            ? ' (does the server run with skip-character-set-client-handshake?)'
            : ''),
      );
  }
  return problems;
}

class SessionNotPinned extends Error {}
class StatementAbandoned extends Error {}

/** How long a stopped statement may take to end before its connection is killed and closed. */
export const ABANDON_GRACE_MS = 1000;

/** A `?` bound as a literal: only the scalar types the tool schema admits. */
function literal(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('a bound number must be finite');
    // Parenthesised, so `- ?` with a negative value never becomes `--`.
    return value < 0 ? `(${String(value)})` : String(value);
  }
  if (typeof value === 'string') return escape(value);
  throw new TypeError('a bound value must be a string, number, boolean or null');
}

/**
 * Client-side binding for the text protocol, so no server-side prepared statement is ever created: each
 * `?` outside quoted strings and identifiers of the policy's regenerated SQL becomes an escaped literal.
 * The count must match exactly; the session pinning (sql_mode, utf8mb4) makes the escaping what the
 * server reads.
 */
export function bindParams(sql: string, params: readonly unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < sql.length; i += 1) {
    const char = sql[i];
    if (char === "'" || char === '"' || char === '`') {
      let end = i + 1;
      for (; end < sql.length; end += 1) {
        if (sql[end] === '\\' && char !== '`') end += 1;
        else if (sql[end] === char) {
          if (sql[end + 1] === char) end += 1;
          else break;
        }
      }
      if (end >= sql.length) throw new TypeError('unterminated quoted text');
      out += sql.slice(i, end + 1);
      i = end;
    } else if (char === '?') {
      if (next >= params.length) throw new TypeError('more placeholders than params');
      out += literal(params[next]);
      next += 1;
    } else {
      out += char;
    }
  }
  if (next !== params.length) throw new TypeError('more params than placeholders');
  return out;
}

interface FieldLike {
  name: string;
  table?: string;
}

/**
 * Result column names, every column kept: a name that occurs more than once (`o.status, p.status`) is
 * qualified with the table alias the server reports, and any name still taken gets `#2`, `#3`, ….
 */
export function uniqueColumnNames(fields: readonly FieldLike[]): string[] {
  const counts = new Map<string, number>();
  for (const field of fields) counts.set(field.name, (counts.get(field.name) ?? 0) + 1);
  const wanted = fields.map((field) =>
    (counts.get(field.name) ?? 0) > 1 && field.table ? `${field.table}.${field.name}` : field.name,
  );
  const taken = new Set<string>();
  return wanted.map((name) => {
    let unique = name;
    for (let n = 2; taken.has(unique); n += 1) unique = `${name}#${n}`;
    taken.add(unique);
    return unique;
  });
}

/** Bytes a cell costs while reading: its UTF-8 or binary length; numbers and NULL a few bytes. */
export function cellBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (Buffer.isBuffer(value)) return value.length;
  return 8;
}

function toRawValue(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return { binary_base64: value.toString('base64') };
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * Takes a connection out of the pool and closes its socket at once: mysql2's destroy() only half-closes
 * it, and a server still sending rows would keep its thread writing into a full buffer.
 */
function closeNow(connection: PoolConnection): void {
  const core = connection.connection as unknown as { stream?: { destroy?: () => void } };
  connection.destroy();
  core.stream?.destroy?.();
}

interface StreamedResult {
  fields: FieldLike[];
  rows: unknown[][];
  overflow: boolean;
}

/**
 * Runs already-checked SELECTs on the business data sources, never on the service database: one small
 * mysql2 pool per data source; every new connection is pinned before its first caller query (read-only,
 * sql_mode, statement time limit) and checked as the server reports it (sql_mode, utf8mb4 on every leg).
 * Statements go over the text protocol with client-side binding, so no prepared statement stays on the
 * server; rows are streamed and counted while read, and a result past its byte cap, a timeout or an
 * aborted run stops the statement with KILL.
 */
@Injectable()
export class MysqlQueryExecutor implements OnApplicationShutdown {
  private readonly logger = new Logger('MysqlQueryExecutor');
  private readonly pools = new Map<string, Promise<Pool>>();
  /** Session statements per pool, run once on each new connection before its first caller query. */
  private readonly sessionStatements = new WeakMap<Pool, string[]>();
  /** Core connections whose session was set up and verified; a pooled connection keeps its session. */
  private readonly restricted = new WeakSet<CoreConnection>();
  private readonly timeoutMs: number;
  private readonly maxResultBytes: number;

  constructor(@Inject(queryMysqlConfig.KEY) config: QueryMysqlConfig) {
    this.timeoutMs = config.queryTimeoutMs;
    this.maxResultBytes = config.maxResultBytes;
    // Without a cap every comparison would be false and a result could grow without bound.
    if (!Number.isInteger(this.maxResultBytes) || this.maxResultBytes <= 0)
      throw new Error('query_mysql needs a positive HARNESS_MYSQL_MAX_RESULT_BYTES');
  }

  async run(
    source: MysqlDataSourceConfig,
    sql: string,
    params: unknown[],
    signal: AbortSignal,
  ): Promise<MysqlRawResponse> {
    let text: string;
    try {
      text = bindParams(sql, params);
    } catch {
      throw new ToolFailure<QueryMysqlFailureCode>(
        'PLACEHOLDER_MISMATCH',
        'The params do not match the ? placeholders of the SQL.',
      );
    }
    let connection: PoolConnection;
    try {
      const pool = await this.poolFor(source);
      connection = await pool.getConnection();
      await this.restrictSession(source, pool, connection);
    } catch (error) {
      throw this.failure(source, error);
    }
    // The run may have been stopped while a connection was being opened: then nothing is executed.
    if (signal.aborted) {
      connection.release();
      throw signal.reason;
    }
    const threadId = connection.threadId;
    let killed = false;
    const kill = (whole = false) => {
      if (killed) return;
      killed = true;
      void this.killQuery(source, threadId, whole);
    };
    let reusable = true;
    // A statement can ignore KILL QUERY (MariaDB checks the kill flag between rows, not inside a string
    // function), and a server can stop answering: a grace period after the stop the call is abandoned,
    // its connection killed and closed, so no call outlives its limit and the pool is not held.
    let abandon: () => void = () => undefined;
    const abandoned = new Promise<never>((_, reject) => {
      abandon = () => {
        reusable = false;
        this.logger.warn(
          `query_mysql statement on data source ${source.id} did not end ${ABANDON_GRACE_MS} ms after it was stopped; its connection was killed and closed`,
        );
        void this.killQuery(source, threadId, true);
        reject(new StatementAbandoned());
      };
    });
    let hardTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      kill();
      hardTimer ??= setTimeout(abandon, ABANDON_GRACE_MS);
    };
    const timer = setTimeout(stop, this.timeoutMs);
    signal.addEventListener('abort', stop, { once: true });
    try {
      const streamed = this.stream(connection, text, () => {
        // Past the byte cap: stop reading now and end the statement with its connection. KILL QUERY alone
        // would leave the server thread blocked writing rows nobody reads until net_write_timeout.
        reusable = false;
        kill(true);
      });
      // Settles later when the call was abandoned; nobody waits for it then.
      streamed.catch(() => undefined);
      const result = await Promise.race([streamed, abandoned]);
      const columns = uniqueColumnNames(result.fields);
      if (result.overflow)
        this.logger.warn(
          `query_mysql result on data source ${source.id} passed ${this.maxResultBytes} bytes (HARNESS_MYSQL_MAX_RESULT_BYTES); the statement was killed and the rows read so far kept`,
        );
      return {
        data_source: source.id,
        sql,
        params,
        columns,
        rows: result.rows.map((row) =>
          Object.fromEntries(columns.map((column, index) => [column, toRawValue(row[index])])),
        ),
        ...(result.overflow ? { truncated_at_bytes: this.maxResultBytes } : {}),
      };
    } catch (error) {
      reusable = false;
      if (signal.aborted) throw signal.reason;
      throw this.failure(source, error, killed);
    } finally {
      clearTimeout(timer);
      clearTimeout(hardTimer);
      signal.removeEventListener('abort', stop);
      if (reusable) connection.release();
      else closeNow(connection);
    }
  }

  /** Reads the rows one by one, counting their bytes; `onOverflow` runs once, when the cap is passed. */
  private stream(connection: PoolConnection, sql: string, onOverflow: () => void): Promise<StreamedResult> {
    const core = connection.connection as unknown as CoreConnection;
    return new Promise<StreamedResult>((resolve, reject) => {
      const result: StreamedResult = { fields: [], rows: [], overflow: false };
      let bytes = 0;
      let settled = false;
      const query = core.query({ sql, rowsAsArray: true });
      query.on('fields', (fields: FieldPacket[]) => {
        result.fields = fields.map((field) => ({ name: field.name, table: field.table }));
      });
      query.on('result', (row: unknown) => {
        // Only rows of a result set; a statement without one (the server refuses writes) reports no row.
        if (settled || !Array.isArray(row)) return;
        const cells = row as unknown[];
        bytes += cells.reduce<number>((sum, cell) => sum + cellBytes(cell), 0);
        if (bytes > this.maxResultBytes) {
          settled = true;
          result.overflow = true;
          core.pause();
          onOverflow();
          resolve(result);
          return;
        }
        result.rows.push(cells);
      });
      query.on('error', (error: unknown) => {
        if (settled) return;
        settled = true;
        reject(error);
      });
      query.on('end', () => {
        if (settled) return;
        settled = true;
        resolve(result);
      });
    });
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
      charset: 'UTF8MB4_GENERAL_CI',
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
   * Pins a connection's session before its first caller query, on every new connection (a reconnect is
   * one), and checks it as the server reports it: the character sets as the handshake left them, before
   * anything else runs, then the sql_mode. A session that is not pinned is destroyed, so nothing runs on
   * it (fail closed), and the log names the setting.
   */
  private async restrictSession(
    source: MysqlDataSourceConfig,
    pool: Pool,
    connection: PoolConnection,
  ): Promise<void> {
    const core = connection.connection as unknown as CoreConnection;
    if (this.restricted.has(core)) return;
    let problems: string[];
    try {
      for (const statement of this.sessionStatements.get(pool) ?? []) await connection.query(statement);
      const [rows] = await connection.query<RowDataPacket[]>(
        'SELECT @@SESSION.sql_mode AS sql_mode, @@SESSION.character_set_client AS character_set_client, ' +
          '@@SESSION.character_set_connection AS character_set_connection, ' +
          '@@SESSION.character_set_results AS character_set_results',
      );
      problems = sessionProblems((rows[0] ?? {}) as ReportedSession);
    } catch (error) {
      connection.destroy();
      throw error;
    }
    if (problems.length > 0) {
      connection.destroy();
      this.logger.error(
        `query_mysql data source ${source.id}: the session could not be pinned, nothing was run: ${problems.join('; ')}`,
      );
      throw new SessionNotPinned(problems.join('; '));
    }
    this.restricted.add(core);
  }

  private connectionOptions(source: MysqlDataSourceConfig) {
    return { host: source.host, port: source.port, user: source.username, password: source.password };
  }

  /** KILL QUERY (or the whole connection) from a separate connection: an account may always kill its own. */
  private async killQuery(source: MysqlDataSourceConfig, threadId: number, whole: boolean): Promise<void> {
    try {
      const connection = await createConnection({ ...this.connectionOptions(source), connectTimeout: 2000 });
      try {
        await connection.query(whole ? 'KILL CONNECTION ?' : 'KILL QUERY ?', [threadId]);
      } finally {
        await connection.end();
      }
    } catch {
      // The statement still ends at the server-side max_statement_time / max_execution_time.
    }
  }

  private failure(
    source: MysqlDataSourceConfig,
    error: unknown,
    killed = false,
  ): ToolFailure<QueryMysqlFailureCode> {
    if (error instanceof SessionNotPinned) {
      return new ToolFailure<QueryMysqlFailureCode>(
        'DATASOURCE_MISCONFIGURED',
        `The data source session could not be pinned (${error.message}); nothing was run.`,
      );
    }
    const { errno, code } = (error ?? {}) as { errno?: number; code?: string };
    if (killed || (errno !== undefined && INTERRUPTED.has(errno))) {
      return new ToolFailure<QueryMysqlFailureCode>(
        'QUERY_TIMEOUT',
        'The query ran past its time limit and was stopped; narrow it.',
      );
    }
    if (code && UNAVAILABLE_CODES.has(code)) {
      // The code stays one (the retry matrix and the agent key on it); the text names the class, so the
      // trace and the agent can tell a refused account from a server that is down.
      const cause = connectFailureCause(code);
      this.logger.warn(
        `query_mysql data source ${source.id} is unavailable: ${UNAVAILABLE_TEXT[cause]} (${code})`,
      );
      return new ToolFailure<QueryMysqlFailureCode>(
        'DATASOURCE_UNAVAILABLE',
        `The data source is unavailable: ${UNAVAILABLE_TEXT[cause]}.`,
      );
    }
    // The server's message may name columns outside the allowlist: only its code is logged, and the
    // agent gets a fixed text.
    this.logger.warn(
      `query_mysql on data source ${source.id} failed on the server: ${code ?? 'unknown'} (errno ${errno ?? '-'})`,
    );
    return new ToolFailure<QueryMysqlFailureCode>('QUERY_FAILED', 'The query failed on the data source.');
  }
}
