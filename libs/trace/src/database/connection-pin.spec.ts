import { PINNED_SQL_MODE, pinProblems, SessionPin, SessionState } from './connection-pin';

const PIN: SessionPin = { sqlMode: PINNED_SQL_MODE, lockWaitTimeoutSeconds: 10 };
const GOOD: SessionState = {
  sqlMode: PINNED_SQL_MODE,
  characterSetClient: 'utf8mb4',
  characterSetConnection: 'utf8mb4',
  characterSetResults: 'utf8mb4',
  lockWaitTimeout: 10,
  innodbLockWaitTimeout: 10,
  maxAllowedPacket: 16 * 1024 * 1024,
};

describe('pinProblems', () => {
  it('accepts a connection whose handshake was honoured and whose session is pinned', () => {
    expect(pinProblems(GOOD, GOOD, PIN)).toEqual([]);
  });

  it('accepts the pinned modes in another order or case', () => {
    const pinned = {
      ...GOOD,
      sqlMode: 'no_engine_substitution,STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO',
    };
    expect(pinProblems(GOOD, pinned, PIN)).toEqual([]);
  });

  it.each<[string, Partial<SessionState>, Partial<SessionState>, RegExp]>([
    [
      'a server that ignored the handshake (skip-character-set-client-handshake, GBK default)',
      { characterSetClient: 'gbk' },
      {},
      /skip-character-set-client-handshake/,
    ],
    [
      'a client character set the pin did not reach',
      {},
      { characterSetClient: 'big5' },
      /character_set_client is big5/,
    ],
    [
      'a connection character set',
      {},
      { characterSetConnection: 'sjis' },
      /character_set_connection is sjis/,
    ],
    ['results not converted', {}, { characterSetResults: null }, /character_set_results is NULL/],
    [
      'NO_BACKSLASH_ESCAPES kept by the server',
      {},
      { sqlMode: `${PINNED_SQL_MODE},NO_BACKSLASH_ESCAPES` },
      /sql_mode could not be pinned/,
    ],
    ['ANSI_QUOTES kept', {}, { sqlMode: `ANSI_QUOTES,${PINNED_SQL_MODE}` }, /sql_mode could not be pinned/],
    ['a mode missing', {}, { sqlMode: 'STRICT_TRANS_TABLES' }, /sql_mode could not be pinned/],
    ['lock waits not bounded', {}, { innodbLockWaitTimeout: 50 }, /lock_wait_timeout/],
  ])('refuses %s, naming the setting', (_name, handshake, pinned, problem) => {
    const problems = pinProblems({ ...GOOD, ...handshake }, { ...GOOD, ...pinned }, PIN);
    expect(problems).toEqual([expect.stringMatching(problem)]);
  });
});
