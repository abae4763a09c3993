/** What went wrong with a statement, as far as what to do next depends on it. */
export type DatabaseFailure =
  /** The statement was chosen as a deadlock victim; its transaction was rolled back, a retry may pass. */
  | 'DEADLOCK'
  /** A row or metadata lock was not granted within the session's lock-wait timeout. */
  | 'LOCK_WAIT_TIMEOUT'
  /** The packet exceeded the server's max_allowed_packet. */
  | 'PACKET_TOO_LARGE'
  /** A value did not fit its column (too long, out of range, invalid text or JSON). */
  | 'VALUE_REFUSED'
  /** The server refused a duplicate or missing key. */
  | 'CONSTRAINT'
  /** The client gave up waiting (the write's time limit): whether the server applied it is unknown. */
  | 'TIMED_OUT'
  /** The connection broke mid-statement: whether the server applied it is unknown. */
  | 'CONNECTION_LOST'
  /** No connection could be made (refused, unreachable, access denied, too many connections). */
  | 'UNAVAILABLE'
  | 'OTHER';

interface DriverError {
  code?: unknown;
  errno?: unknown;
  sqlState?: unknown;
  message?: unknown;
}

/** mysql2's error codes (the server's ER_* names and its own client-side ones), by failure class. */
const FAILURE_BY_CODE: Record<string, DatabaseFailure> = {
  ER_LOCK_DEADLOCK: 'DEADLOCK',
  ER_LOCK_WAIT_TIMEOUT: 'LOCK_WAIT_TIMEOUT',
  ER_NET_PACKET_TOO_LARGE: 'PACKET_TOO_LARGE',
  ER_DATA_TOO_LONG: 'VALUE_REFUSED',
  ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: 'VALUE_REFUSED',
  ER_WARN_DATA_OUT_OF_RANGE: 'VALUE_REFUSED',
  ER_INVALID_JSON_TEXT: 'VALUE_REFUSED',
  ER_CONSTRAINT_FAILED: 'VALUE_REFUSED',
  ER_DUP_ENTRY: 'CONSTRAINT',
  ER_NO_REFERENCED_ROW_2: 'CONSTRAINT',
  ER_ROW_IS_REFERENCED_2: 'CONSTRAINT',
  PROTOCOL_SEQUENCE_TIMEOUT: 'TIMED_OUT',
  PROTOCOL_CONNECTION_LOST: 'CONNECTION_LOST',
  ECONNRESET: 'CONNECTION_LOST',
  EPIPE: 'CONNECTION_LOST',
  ER_SERVER_SHUTDOWN: 'CONNECTION_LOST',
  ER_CONNECTION_KILLED: 'CONNECTION_LOST',
  ER_QUERY_INTERRUPTED: 'CONNECTION_LOST',
  ECONNREFUSED: 'UNAVAILABLE',
  ETIMEDOUT: 'UNAVAILABLE',
  EHOSTUNREACH: 'UNAVAILABLE',
  ENOTFOUND: 'UNAVAILABLE',
  ER_ACCESS_DENIED_ERROR: 'UNAVAILABLE',
  ER_CON_COUNT_ERROR: 'UNAVAILABLE',
  ER_TOO_MANY_USER_CONNECTIONS: 'UNAVAILABLE',
  // The journal's own: the pool gave no connection within the write's time limit (nothing was sent).
  SUPERBIZ_NO_CONNECTION_IN_TIME: 'UNAVAILABLE',
};

/**
 * Server errors whose message names only schema objects (a column, a lock, a limit), never a value or a
 * statement, so the log may carry it; every other message is left out (a duplicate-entry or parse error
 * quotes the user's data or the SQL text).
 */
const MESSAGE_IS_SAFE = new Set([
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_NET_PACKET_TOO_LARGE',
  'ER_DATA_TOO_LONG',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
]);

const DESCRIPTIONS: Record<DatabaseFailure, string> = {
  DEADLOCK: 'deadlock victim',
  LOCK_WAIT_TIMEOUT: 'lock wait timeout',
  PACKET_TOO_LARGE: 'packet larger than max_allowed_packet',
  VALUE_REFUSED: 'a value the column refused',
  CONSTRAINT: 'a key constraint',
  TIMED_OUT: 'no answer within the write time limit',
  CONNECTION_LOST: 'connection lost mid-statement',
  UNAVAILABLE: 'database unavailable',
  OTHER: 'database error',
};

function driverError(error: unknown): DriverError {
  return typeof error === 'object' && error !== null ? (error as DriverError) : {};
}

export function classifyDatabaseError(error: unknown): DatabaseFailure {
  const code = driverError(error).code;
  return (typeof code === 'string' && FAILURE_BY_CODE[code]) || 'OTHER';
}

/** Whether the statement may have been applied although the client saw an error (read back before deciding). */
export function outcomeUnknown(failure: DatabaseFailure): boolean {
  return failure === 'TIMED_OUT' || failure === 'CONNECTION_LOST';
}

/**
 * One log-safe phrase for a database error: its class, the driver's code and errno, and the server's
 * message only where it cannot carry data, e.g. `deadlock victim (ER_LOCK_DEADLOCK 1213: Deadlock found
 * when trying to get lock; try restarting transaction)`. Never the statement or its values.
 */
export function describeDatabaseError(error: unknown): string {
  const { code, errno, message } = driverError(error);
  if (typeof code !== 'string')
    return `unexpected error (${error instanceof Error ? error.name : 'unknown error'})`;
  const failure = classifyDatabaseError(error);
  const errnoText = typeof errno === 'number' ? ` ${errno}` : '';
  const messageText =
    MESSAGE_IS_SAFE.has(code) && typeof message === 'string' ? `: ${message.slice(0, 200)}` : '';
  return `${DESCRIPTIONS[failure]} (${code}${errnoText}${messageText})`;
}
