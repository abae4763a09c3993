import * as mysql2 from 'mysql2';
import type { Pool, PoolConnection } from 'mysql2';
import { PINNED_SQL_MODE, pinConnection, pinPoolConnections, SessionPin } from '@app/trace';
import { TEST_MYSQL } from '../support/test-env';

/**
 * Every service-database connection is pinned when it is made, against the real server: whatever state
 * a session starts in (a server's sql_mode changed after start-up, a character set other than the one
 * the driver escapes for), it is either pinned and verified, or refused naming the setting.
 */
describe('service database connection pin (real MySQL)', () => {
  const PIN: SessionPin = { sqlMode: PINNED_SQL_MODE, lockWaitTimeoutSeconds: 7 };
  const pools: Pool[] = [];

  const pool = (options: mysql2.PoolOptions = {}) => {
    const created = mysql2.createPool({ ...TEST_MYSQL, connectionLimit: 3, ...options });
    pools.push(created);
    return created;
  };
  const connectionOf = (from: Pool) =>
    new Promise<PoolConnection>((resolve, reject) =>
      from.getConnection((error, connection) => (error ? reject(error) : resolve(connection))),
    );
  const query = <T>(connection: PoolConnection | Pool, sql: string, values: unknown[] = []) =>
    new Promise<T>((resolve, reject) =>
      connection.query(sql, values, (error, rows) => (error ? reject(error) : resolve(rows as T))),
    );

  afterAll(async () => {
    await Promise.all(pools.map((each) => new Promise((resolve) => each.end(resolve))));
  });

  it('pins a session that started in NO_BACKSLASH_ESCAPES and ANSI_QUOTES: a bound quote stays one value', async () => {
    const connection = await connectionOf(pool());
    await query(connection, "SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES,ANSI_QUOTES'");
    await pinConnection(connection, PIN);
    const hostile = `x\\' UNION SELECT 1 -- "`;
    const [row] = await query<{ v: string; mode: string; wait: number }[]>(
      connection,
      'SELECT ? AS v, @@SESSION.sql_mode AS mode, @@SESSION.innodb_lock_wait_timeout AS wait',
      [hostile],
    );
    expect(row).toEqual({ v: hostile, mode: PINNED_SQL_MODE, wait: 7 });
    connection.release();
  });

  it('refuses a session whose character set is not the one the driver escapes for, naming the setting', async () => {
    const connection = await connectionOf(pool({ charset: 'GBK_CHINESE_CI' }));
    await expect(pinConnection(connection, PIN)).rejects.toThrow(
      /character_set_client=gbk.*skip-character-set-client-handshake/,
    );
    connection.destroy();
  });

  it('hands out only pinned connections, however they are taken (query, getConnection), and refuses the rest', async () => {
    const pinned = pinPoolConnections(pool(), PIN);
    const modes = await Promise.all(
      Array.from({ length: 3 }, () => query<{ mode: string }[]>(pinned, 'SELECT @@SESSION.sql_mode AS mode')),
    );
    expect(modes.map(([row]) => row.mode)).toEqual([PINNED_SQL_MODE, PINNED_SQL_MODE, PINNED_SQL_MODE]);

    const refusedErrors: Error[] = [];
    const refusing = pinPoolConnections(pool({ charset: 'BIG5_CHINESE_CI' }), PIN, (error) =>
      refusedErrors.push(error),
    );
    await expect(query(refusing, 'SELECT 1')).rejects.toThrow(/character_set_client=big5/);
    expect(refusedErrors).toHaveLength(1);
  });
});
