import { createConnection, RowDataPacket } from 'mysql2/promise';
import { BUSINESS_SQL_MODE, ReportedSession, sessionProblems } from './mysql-query-executor';
import type { MysqlDataSourceConfig } from './mysql-tools-config';
import { ConnectFailureCause, connectFailureCause } from './connect-failure';

export type { ConnectFailureCause } from './connect-failure';

/** Privileges that read and nothing else; anything else in SHOW GRANTS makes an account not read-only. */
const READ_ONLY_PRIVILEGES = new Set(['SELECT', 'SHOW VIEW', 'USAGE']);

export interface GrantReading {
  /** `PRIVILEGE ON object` for every privilege beyond reading, e.g. "INSERT ON `shop`.*". */
  beyondSelect: string[];
  /** Roles granted to the account, whose own privileges SHOW GRANTS does not list. */
  roles: string[];
}

/** Splits "SELECT (a, b), INSERT" at the commas outside column lists. */
function privilegesOf(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of list) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts
    .map((part) =>
      part
        .replace(/\(.*\)/s, '')
        .trim()
        .toUpperCase(),
    )
    .filter(Boolean);
}

/**
 * Reads `SHOW GRANTS` lines (MariaDB and MySQL 8 spellings). Only the privilege list and the object
 * are kept: the `TO … IDENTIFIED BY PASSWORD` part may carry a password hash and is never returned.
 */
export function readGrants(lines: readonly string[]): GrantReading {
  const reading: GrantReading = { beyondSelect: [], roles: [] };
  for (const line of lines) {
    const privileged = /^GRANT\s+(.+?)\s+ON\s+(.+?)\s+TO\s+(.*)$/is.exec(line);
    if (!privileged) {
      const role = /^GRANT\s+(.+?)\s+TO\s+/is.exec(line);
      if (role) reading.roles.push(role[1].trim());
      continue;
    }
    const [, list, object, rest] = privileged;
    for (const privilege of privilegesOf(list)) {
      if (!READ_ONLY_PRIVILEGES.has(privilege)) reading.beyondSelect.push(`${privilege} ON ${object}`);
    }
    if (/\bWITH\s+GRANT\s+OPTION\b/i.test(rest)) reading.beyondSelect.push(`GRANT OPTION ON ${object}`);
  }
  return reading;
}

export interface ColumnRow {
  schema: string;
  table: string;
  column: string;
}

/**
 * Allowlisted tables (`schema.table`) and columns (`schema.table.column`) the account cannot see.
 * Table names compare exactly (they are case-sensitive on most servers), column names case-insensitively
 * like MySQL does.
 */
export function missingAllowlistEntries(
  source: Pick<MysqlDataSourceConfig, 'schemas'>,
  present: readonly ColumnRow[],
): string[] {
  const seen = new Map<string, Set<string>>();
  for (const row of present) {
    const key = `${row.schema}.${row.table}`;
    if (!seen.has(key)) seen.set(key, new Set());
    seen.get(key)!.add(row.column.toLowerCase());
  }
  const missing: string[] = [];
  for (const [schema, tables] of source.schemas) {
    for (const [table, { columns }] of tables) {
      const found = seen.get(`${schema}.${table}`);
      if (!found) {
        missing.push(`${schema}.${table}`);
        continue;
      }
      for (const column of columns) {
        if (!found.has(column.toLowerCase())) missing.push(`${schema}.${table}.${column}`);
      }
    }
  }
  return missing;
}

export type DataSourceInspection =
  | { reachable: false; reason: string; cause: ConnectFailureCause }
  | {
      reachable: true;
      grants: GrantReading;
      missing: string[];
      /** Why query_mysql could not pin a session here (each names the setting); empty when it can. */
      session: string[];
    };

/** Why a connection failed, from the driver's error code; safe to print (no credentials). */
export function connectFailureReason(
  source: Pick<MysqlDataSourceConfig, 'host' | 'port' | 'database'>,
  code: string | undefined,
): string {
  switch (code) {
    case 'ER_ACCESS_DENIED_ERROR':
      return 'the server rejected the username/password';
    case 'ER_BAD_DB_ERROR':
      return `database ${source.database} does not exist`;
    case 'ER_DBACCESS_DENIED_ERROR':
      return `the account may not use database ${source.database}`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return `${source.host}:${source.port} is not reachable (${code})`;
    case undefined:
    default:
      return `the connection failed (${code ?? 'unknown error'})`;
  }
}

/**
 * Connects with the data source's own account and reads its grants, the columns it can see and whether
 * query_mysql can pin its sessions (sql_mode, utf8mb4 on every leg).
 */
export async function inspectDataSource(
  source: MysqlDataSourceConfig,
  connectTimeoutMs = 5000,
): Promise<DataSourceInspection> {
  let connection;
  try {
    connection = await createConnection({
      host: source.host,
      port: source.port,
      user: source.username,
      password: source.password,
      database: source.database || undefined,
      connectTimeout: connectTimeoutMs,
      charset: 'UTF8MB4_GENERAL_CI',
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { reachable: false, reason: connectFailureReason(source, code), cause: connectFailureCause(code) };
  }
  try {
    // The character sets as the handshake left them, then the sql_mode query_mysql pins, read back.
    await connection.query(`SET SESSION sql_mode = '${BUSINESS_SQL_MODE}'`);
    const [sessionRows] = await connection.query<RowDataPacket[]>(
      'SELECT @@SESSION.sql_mode AS sql_mode, @@SESSION.character_set_client AS character_set_client, ' +
        '@@SESSION.character_set_connection AS character_set_connection, ' +
        '@@SESSION.character_set_results AS character_set_results',
    );
    const session = sessionProblems((sessionRows[0] ?? {}) as ReportedSession);
    const [grantRows] = await connection.query<RowDataPacket[]>('SHOW GRANTS');
    const grants = readGrants(grantRows.map((row) => String(Object.values(row)[0])));
    const schemas = [...source.schemas.keys()];
    const [columnRows] = await connection.query<RowDataPacket[]>(
      'SELECT TABLE_SCHEMA AS `schema`, TABLE_NAME AS `table`, COLUMN_NAME AS `column` FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN (?)',
      [schemas],
    );
    return {
      reachable: true,
      grants,
      missing: missingAllowlistEntries(source, columnRows as ColumnRow[]),
      session,
    };
  } finally {
    await connection.end();
  }
}
