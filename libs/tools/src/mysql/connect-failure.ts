/**
 * The class of a failed connection, from the driver's error code: the server refused the account, the
 * server could not be reached, or anything else (named by its code in the reason). A closed set, so
 * a health detail or a tool result can say which without carrying the driver's message.
 */
export type ConnectFailureCause = 'ACCESS_DENIED' | 'UNREACHABLE' | 'CONNECT_FAILED';

export function connectFailureCause(code: string | undefined): ConnectFailureCause {
  switch (code) {
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_DBACCESS_DENIED_ERROR':
      return 'ACCESS_DENIED';
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'PROTOCOL_CONNECTION_LOST':
      return 'UNREACHABLE';
    case undefined:
    default:
      return 'CONNECT_FAILED';
  }
}
