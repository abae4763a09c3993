import type { Pool, PoolConnection } from 'mysql2';

/**
 * The session state every connection to the service database runs with, set when the connection is
 * made and verified as the server reports it before anyone may use it. Set per connection, not once at
 * start-up: a new pool connection takes the server's current defaults, which an operator (or an
 * attacker with server access) may have changed since the service started.
 */
export interface SessionPin {
  /** Exactly this sql_mode; never NO_BACKSLASH_ESCAPES or ANSI_QUOTES, which change how bound values read. */
  sqlMode: string;
  /** innodb_lock_wait_timeout and lock_wait_timeout (row and metadata locks), in seconds. */
  lockWaitTimeoutSeconds: number;
}

/** Modes the driver's client-side value binding is written for; nothing that changes how a literal is read. */
export const PINNED_SQL_MODE = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

/** The character set the driver asks for in its handshake and escapes values for. */
const CHARSET = 'utf8mb4';

/** What the server reports for one connection after the pin. */
export interface SessionState {
  sqlMode: string;
  characterSetClient: string;
  characterSetConnection: string;
  characterSetResults: string | null;
  lockWaitTimeout: number;
  innodbLockWaitTimeout: number;
  maxAllowedPacket: number;
}

/** A connection whose state is not the pinned one: it is closed, never used. */
export class ConnectionPinError extends Error {
  override readonly name = 'ConnectionPinError';
}

/**
 * What is wrong with a connection's state, naming the server setting to change; empty when it is pinned.
 * `handshake` is the state before the pin: a server that ignored the handshake's character set (it runs
 * with skip-character-set-client-handshake and a non-utf8mb4 character_set_server) is refused outright,
 * even though SET NAMES could repair the session, because nothing else about it can be trusted to be
 * what the driver assumes.
 */
export function pinProblems(handshake: SessionState, pinned: SessionState, pin: SessionPin): string[] {
  const problems: string[] = [];
  if (handshake.characterSetClient !== CHARSET) {
    problems.push(
      `the server ignored the client's character set (character_set_client=${handshake.characterSetClient}, asked ${CHARSET}): it runs with skip-character-set-client-handshake; remove it or set character_set_server=${CHARSET}`,
    );
  }
  const charsets: [string, string | null][] = [
    ['character_set_client', pinned.characterSetClient],
    ['character_set_connection', pinned.characterSetConnection],
    ['character_set_results', pinned.characterSetResults],
  ];
  for (const [name, value] of charsets) {
    if (value !== CHARSET) problems.push(`${name} is ${value ?? 'NULL'}, not ${CHARSET}`);
  }
  if (normaliseMode(pinned.sqlMode) !== normaliseMode(pin.sqlMode)) {
    problems.push(`sql_mode could not be pinned (the server kept '${pinned.sqlMode}')`);
  }
  if (
    pinned.lockWaitTimeout !== pin.lockWaitTimeoutSeconds ||
    pinned.innodbLockWaitTimeout !== pin.lockWaitTimeoutSeconds
  ) {
    problems.push('lock_wait_timeout / innodb_lock_wait_timeout could not be set for the session');
  }
  return problems;
}

function normaliseMode(mode: string): string {
  return mode
    .toUpperCase()
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .sort()
    .join(',');
}

const STATE_QUERY = `SELECT @@SESSION.sql_mode AS sql_mode, @@character_set_client AS client,
  @@character_set_connection AS connection, @@character_set_results AS results,
  @@SESSION.lock_wait_timeout AS lock_wait, @@SESSION.innodb_lock_wait_timeout AS innodb_lock_wait,
  @@SESSION.max_allowed_packet AS max_packet`;

/** max_allowed_packet of each pinned connection, as its server reported it when the connection was made. */
const packetLimits = new WeakMap<object, number>();

/** The largest packet the server takes on this connection; undefined for a connection not made by a pinned pool. */
export function packetLimitOf(connection: object): number | undefined {
  return packetLimits.get(connection);
}

function query(connection: PoolConnection, sql: string, values: unknown[] = []): Promise<unknown> {
  return new Promise((resolve, reject) =>
    connection.query(sql, values, (error, results) => (error ? reject(error) : resolve(results))),
  );
}

async function readState(connection: PoolConnection): Promise<SessionState> {
  const [row] = (await query(connection, STATE_QUERY)) as {
    sql_mode: string | null;
    client: string;
    connection: string;
    results: string | null;
    lock_wait: number | string;
    innodb_lock_wait: number | string;
    max_packet: number | string;
  }[];
  return {
    sqlMode: row.sql_mode ?? '',
    characterSetClient: row.client,
    characterSetConnection: row.connection,
    characterSetResults: row.results,
    lockWaitTimeout: Number(row.lock_wait),
    innodbLockWaitTimeout: Number(row.innodb_lock_wait),
    maxAllowedPacket: Number(row.max_packet),
  };
}

/** Sets the pinned session state on a fresh connection and verifies it; throws ConnectionPinError otherwise. */
export async function pinConnection(connection: PoolConnection, pin: SessionPin): Promise<void> {
  const handshake = await readState(connection);
  await query(
    connection,
    'SET SESSION sql_mode = ?, SESSION lock_wait_timeout = ?, SESSION innodb_lock_wait_timeout = ?',
    [pin.sqlMode, pin.lockWaitTimeoutSeconds, pin.lockWaitTimeoutSeconds],
  );
  const pinned = await readState(connection);
  const problems = pinProblems(handshake, pinned, pin);
  if (problems.length > 0) {
    throw new ConnectionPinError(`a service database connection was refused: ${problems.join('; ')}`);
  }
  packetLimits.set(connection, pinned.maxAllowedPacket);
}

/**
 * Makes every connection the pool hands out a pinned one: a connection is pinned once, when it is made,
 * before its first user gets it; one that cannot be pinned is destroyed and its user gets the error.
 * The pool's own query(), execute() and TypeORM's query runners all take connections through
 * getConnection, so nothing bypasses it.
 */
export function pinPoolConnections(
  pool: Pool,
  pin: SessionPin,
  refused: (error: Error) => void = () => undefined,
): Pool {
  const pinned = new WeakSet<PoolConnection>();
  const getConnection = pool.getConnection.bind(pool);
  pool.getConnection = (
    callback: (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void,
  ) =>
    getConnection((error, connection) => {
      if (error || pinned.has(connection)) {
        callback(error, connection);
        return;
      }
      pinConnection(connection, pin).then(
        () => {
          pinned.add(connection);
          callback(null, connection);
        },
        (pinError: Error) => {
          connection.destroy();
          refused(pinError);
          callback(pinError, undefined as unknown as PoolConnection);
        },
      );
    });
  return pool;
}
