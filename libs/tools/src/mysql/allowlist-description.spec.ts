import { describeAllowlist, describeColumnRules } from './allowlist-description';
import { hiddenColumnsOf } from './mysql-tools-config';
import type { MysqlDataSourceConfig } from './mysql-tools-config';

function source(
  id: string,
  schemas: Record<string, Record<string, string[]>>,
  defaultSchema = Object.keys(schemas)[0],
  rules: { hidden?: string[]; shown?: string[] } = {},
): MysqlDataSourceConfig {
  return {
    id,
    host: '127.0.0.1',
    port: 3306,
    database: defaultSchema,
    username: 'u',
    password: 'SECRET-PASSWORD',
    defaultSchema,
    schemas: new Map(
      Object.entries(schemas).map(([schema, tables]) => [
        schema,
        new Map(
          Object.entries(tables).map(([table, columns]) => [
            table,
            {
              columns: new Set(columns),
              hidden: hiddenColumnsOf(
                columns,
                {
                  hidden: rules.hidden?.filter((name) => columns.includes(name)),
                  shown: rules.shown?.filter((name) => columns.includes(name)),
                },
                table,
              ),
            },
          ]),
        ),
      ]),
    ),
    functions: new Set(['COUNT']),
  };
}

const columns = (n: number) => Array.from({ length: n }, (_, i) => `c${String(i).padStart(2, '0')}`);

describe('describeAllowlist', () => {
  it.each<[string, MysqlDataSourceConfig[], { maxTables: number; maxColumns: number }, string]>([
    ['nothing configured', [], { maxTables: 5, maxColumns: 5 }, 'Data sources: (none configured).'],
    [
      'sorted sources, schemas, tables and columns',
      [
        source('zeta', { z_db: { t: ['b', 'a'] } }),
        source(
          'orders',
          {
            order_db: { payment_record: ['status', 'order_id'], biz_order: ['order_id', 'amount'] },
            audit_db: { log: ['id'] },
          },
          'order_db',
        ),
      ],
      { maxTables: 5, maxColumns: 5 },
      [
        'Data sources and the only tables and columns you may query:',
        '- orders (default schema order_db): audit_db.log(id); order_db.biz_order(amount, order_id); order_db.payment_record(order_id, status)',
        '- zeta (default schema z_db): z_db.t(a, b)',
      ].join('\n'),
    ],
    [
      'capped tables and columns with a count of the rest',
      [source('big', { db: { t3: columns(2), t1: columns(4), t2: ['x'] } })],
      { maxTables: 2, maxColumns: 3 },
      [
        'Data sources and the only tables and columns you may query:',
        '- big (default schema db): db.t1(c00, c01, c02, …1 more); db.t2(x); …1 more tables',
      ].join('\n'),
    ],
  ])('%s', (_name, sources, limits, expected) => {
    expect(describeAllowlist(sources, limits)).toBe(expected);
  });

  it('is the same whatever order the allowlist was written in, and never names credentials', () => {
    const a = source('s', { db: { t1: ['a', 'b'], t2: ['c'] } });
    const b = source('s', { db: { t2: ['c'], t1: ['b', 'a'] } });
    expect(describeAllowlist([a])).toBe(describeAllowlist([b]));
    expect(describeAllowlist([a])).not.toContain('SECRET-PASSWORD');
  });
});

describe('hidden columns, for the model and for doctor', () => {
  const shop = source(
    'shop',
    { shop: { customer: ['id', 'phone', 'auth_code', 'nickname'], orders: ['id', 'auth_token'] } },
    'shop',
    { hidden: ['nickname'], shown: ['auth_code'] },
  );

  it('marks hidden columns in the model-facing allowlist and says what that means', () => {
    const text = describeAllowlist([shop]);
    expect(text).toContain('shop.customer(auth_code, id, nickname [hidden], phone [hidden])');
    expect(text).toContain('shop.orders(auth_token [hidden], id)');
    expect(text).toContain('comes back as [REDACTED]');
  });

  it('says nothing about hiding when no column is hidden', () => {
    expect(describeAllowlist([source('plain', { db: { t: ['id', 'status'] } })])).not.toContain('[hidden]');
  });

  it('lists for doctor each hidden column with its reason, and the sensitive names shown', () => {
    expect(describeColumnRules(shop)).toEqual({
      byName: ['shop.customer.phone', 'shop.orders.auth_token'],
      listed: ['shop.customer.nickname'],
      shown: ['shop.customer.auth_code'],
    });
  });
});
