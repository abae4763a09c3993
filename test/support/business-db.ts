import { Connection, createConnection } from 'mysql2/promise';

/** A separate business database for query_mysql (demo and tests), read by a dedicated read-only account. */
export interface BusinessDatabase {
  schema: string;
  user: string;
  password: string;
}

export interface AdminConnection {
  host: string;
  port: number;
  user: string;
  password: string;
}

const CHANNELS = ['alipay', 'wechat', 'card', 'paypal'];

/** Deterministic pseudo-random numbers, so every seeded database holds the same story. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function sqlTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

async function seed(connection: Connection, now: Date): Promise<void> {
  const next = random(42);
  const minutesAgo = (minutes: number) => sqlTime(new Date(now.getTime() - minutes * 60_000));
  const users: unknown[][] = [];
  for (let i = 1; i <= 40; i += 1) {
    users.push([`u-${i}`, `user${i}@example.com`, `1381234${String(1000 + i).slice(-4)}`, `$2b$10$hash${i}`]);
  }
  await connection.query('INSERT INTO user_account (user_id, email, phone, password_hash) VALUES ?', [users]);

  const orders: unknown[][] = [];
  const payments: unknown[][] = [];
  for (let i = 1; i <= 240; i += 1) {
    // The last 30 minutes are the incident: the payment channel times out while the order pool is exhausted.
    const age = Math.floor(next() * 1440);
    const incident = age < 30 && next() < 0.7;
    const orderId = i === 123 ? 'order-123' : `order-${1000 + i}`;
    const created = i === 123 ? 18 : age;
    const status = i === 123 || incident ? 'PAY_TIMEOUT' : next() < 0.95 ? 'PAID' : 'FAILED';
    const channel = i === 123 ? 'alipay' : CHANNELS[Math.floor(next() * CHANNELS.length)];
    orders.push([
      orderId,
      `u-${1 + (i % 40)}`,
      (10 + next() * 490).toFixed(2),
      status,
      `4111 1111 1111 ${String(1000 + i).slice(-4)}`,
      `note for ${orderId}`,
      minutesAgo(created),
      minutesAgo(Math.max(0, created - 1)),
    ]);
    const timedOut = status === 'PAY_TIMEOUT';
    payments.push([
      `pay-${i}`,
      orderId,
      channel,
      timedOut ? 'TIMEOUT' : status === 'PAID' ? 'SUCCESS' : 'DECLINED',
      timedOut ? 'ERR_TIMEOUT' : status === 'PAID' ? null : 'ERR_DECLINED',
      timedOut ? 30000 + Math.floor(next() * 2000) : 80 + Math.floor(next() * 400),
      JSON.stringify({ gateway: channel, attempt: 1, trace: `t-${i}` }),
      minutesAgo(created),
      minutesAgo(Math.max(0, created - 1)),
    ]);
  }
  await connection.query(
    'INSERT INTO biz_order (order_id, user_id, amount, payment_status, card_number, note, created_at, updated_at) VALUES ?',
    [orders],
  );
  await connection.query(
    'INSERT INTO payment_record (payment_id, order_id, channel, status, error_code, latency_ms, raw_payload, created_at, updated_at) VALUES ?',
    [payments],
  );
}

/**
 * Creates the schema with realistic rows (incl. the order-123 payment-timeout incident) and the reader
 * account; the eval passes `seedRows: false` and loads each scenario's own rows instead.
 */
export async function createBusinessDatabase(
  admin: AdminConnection,
  db: BusinessDatabase,
  now = new Date(),
  seedRows = true,
): Promise<void> {
  // It drops and recreates the schema: only ever one of ours (docs/demo-and-compose.md).
  if (!db.schema.startsWith('superbiz_'))
    throw new Error(
      `refusing to drop and recreate ${db.schema}: the demo seeder only recreates schemas named superbiz_* ` +
        '(a guard against wiping a real database; docs/demo-and-compose.md)',
    );
  const connection = await createConnection({ ...admin, multipleStatements: false });
  try {
    const schema = connection.escapeId(db.schema);
    await connection.query(`DROP DATABASE IF EXISTS ${schema}`);
    await connection.query(`CREATE DATABASE ${schema} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await connection.query(`USE ${schema}`);
    await connection.query(`CREATE TABLE user_account (
      user_id VARCHAR(32) PRIMARY KEY, email VARCHAR(128) NOT NULL, phone VARCHAR(32) NOT NULL, password_hash VARCHAR(128) NOT NULL)`);
    await connection.query(`CREATE TABLE biz_order (
      order_id VARCHAR(32) PRIMARY KEY, user_id VARCHAR(32) NOT NULL, amount DECIMAL(10,2) NOT NULL,
      payment_status VARCHAR(16) NOT NULL, card_number VARCHAR(32) NULL, note TEXT NULL,
      created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL, KEY idx_biz_order_user (user_id))`);
    await connection.query(`CREATE TABLE payment_record (
      payment_id VARCHAR(32) PRIMARY KEY, order_id VARCHAR(32) NOT NULL, channel VARCHAR(16) NOT NULL,
      status VARCHAR(16) NOT NULL, error_code VARCHAR(32) NULL, latency_ms INT NOT NULL, raw_payload TEXT NULL,
      created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL, KEY idx_payment_order (order_id))`);
    if (seedRows) await seed(connection, now);
    const account = `${connection.escape(db.user)}@'%'`;
    await connection.query(
      `CREATE USER IF NOT EXISTS ${account} IDENTIFIED BY ${connection.escape(db.password)}`,
    );
    await connection.query(`ALTER USER ${account} IDENTIFIED BY ${connection.escape(db.password)}`);
    await connection.query(`GRANT SELECT ON ${schema}.* TO ${account}`);
  } finally {
    await connection.end();
  }
}

export async function dropBusinessDatabase(admin: AdminConnection, db: BusinessDatabase): Promise<void> {
  const connection = await createConnection(admin);
  try {
    await connection.query(`DROP DATABASE IF EXISTS ${connection.escapeId(db.schema)}`);
    await connection.query(`DROP USER IF EXISTS ${connection.escape(db.user)}@'%'`);
  } finally {
    await connection.end();
  }
}
