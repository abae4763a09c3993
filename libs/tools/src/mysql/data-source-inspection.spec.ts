import { connectFailureReason, missingAllowlistEntries, readGrants } from './data-source-inspection';

describe('readGrants', () => {
  it.each([
    [
      'MariaDB SELECT-only',
      ["GRANT USAGE ON *.* TO `r`@`%` IDENTIFIED BY PASSWORD '*ABC'", 'GRANT SELECT ON `shop`.* TO `r`@`%`'],
      [],
      [],
    ],
    [
      'column-level SELECT and SHOW VIEW',
      ['GRANT SELECT (`a`, `b`), SHOW VIEW ON `shop`.`t` TO `r`@`%`'],
      [],
      [],
    ],
    ['INSERT next to SELECT', ['GRANT SELECT, INSERT ON `shop`.* TO `r`@`%`'], ['INSERT ON `shop`.*'], []],
    [
      'column-level UPDATE',
      ['GRANT SELECT (`a`), UPDATE (`b`) ON `shop`.`t` TO `r`@`%`'],
      ['UPDATE ON `shop`.`t`'],
      [],
    ],
    [
      'root',
      ['GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION'],
      ['ALL PRIVILEGES ON *.*', 'GRANT OPTION ON *.*'],
      [],
    ],
    [
      'MySQL 8 dynamic privilege',
      ['GRANT SELECT ON *.* TO `r`@`%`', 'GRANT BACKUP_ADMIN ON *.* TO `r`@`%`'],
      ['BACKUP_ADMIN ON *.*'],
      [],
    ],
    [
      'a role',
      ['GRANT `reader_role` TO `r`@`%`', 'SET DEFAULT ROLE `reader_role` FOR `r`@`%`'],
      [],
      ['`reader_role`'],
    ],
  ])('%s', (_name, lines, beyondSelect, roles) => {
    expect(readGrants(lines)).toEqual({ beyondSelect, roles });
  });

  it('never returns the password hash of the TO part', () => {
    expect(
      JSON.stringify(readGrants(["GRANT INSERT ON *.* TO `r`@`%` IDENTIFIED BY PASSWORD '*SECRETHASH'"])),
    ).not.toContain('SECRETHASH');
  });
});

describe('missingAllowlistEntries', () => {
  const source = {
    schemas: new Map([
      [
        'shop',
        new Map([
          ['orders', { columns: new Set(['id', 'Status']), hidden: new Set<string>() }],
          ['gone', { columns: new Set(['id']), hidden: new Set<string>() }],
        ]),
      ],
    ]),
  };
  it('names missing tables and columns; columns compare case-insensitively', () => {
    expect(
      missingAllowlistEntries(source, [
        { schema: 'shop', table: 'orders', column: 'ID' },
        { schema: 'shop', table: 'orders', column: 'status' },
        { schema: 'shop', table: 'Gone', column: 'id' },
      ]),
    ).toEqual(['shop.gone']);
    expect(missingAllowlistEntries(source, [{ schema: 'shop', table: 'orders', column: 'id' }])).toEqual([
      'shop.orders.Status',
      'shop.gone',
    ]);
  });
});

describe('connectFailureReason', () => {
  const source = { host: 'db.internal', port: 3307, database: 'shop' };
  it.each([
    ['ER_ACCESS_DENIED_ERROR', 'the server rejected the username/password'],
    ['ER_BAD_DB_ERROR', 'database shop does not exist'],
    ['ECONNREFUSED', 'db.internal:3307 is not reachable (ECONNREFUSED)'],
    [undefined, 'the connection failed (unknown error)'],
  ])('%s', (code, reason) => expect(connectFailureReason(source, code)).toBe(reason));
});
