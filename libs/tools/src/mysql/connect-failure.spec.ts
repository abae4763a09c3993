import { connectFailureCause } from './connect-failure';

describe('connectFailureCause', () => {
  it.each([
    ['ER_ACCESS_DENIED_ERROR', 'ACCESS_DENIED'],
    ['ER_DBACCESS_DENIED_ERROR', 'ACCESS_DENIED'],
    ['ECONNREFUSED', 'UNREACHABLE'],
    ['ETIMEDOUT', 'UNREACHABLE'],
    ['ENOTFOUND', 'UNREACHABLE'],
    ['EHOSTUNREACH', 'UNREACHABLE'],
    ['PROTOCOL_CONNECTION_LOST', 'UNREACHABLE'],
    ['ER_BAD_DB_ERROR', 'CONNECT_FAILED'],
    ['ER_ACCESS_DENIED_ERROR_X', 'CONNECT_FAILED'],
    [undefined, 'CONNECT_FAILED'],
  ])('classifies %p as %s', (code, cause) => {
    expect(connectFailureCause(code)).toBe(cause);
  });
});
