import { ConfigValidationError } from '@app/config';
import { hiddenColumnsOf, parseMysqlToolsConfig, refuseServiceDatabase } from './mysql-tools-config';

const env = { DB_URL: 'mysql://127.0.0.1:3307/order_db', DB_USER: 'reader', DB_PASS: 's3cret' };

function yaml(source: string): string {
  return `harness:\n  mysql-tools:\n    data-sources:\n${source}`;
}

const valid = yaml(`      orders:
        url: \${DB_URL}
        username: \${DB_USER}
        password: \${DB_PASS}
        default-schema: order_db
        allowed-schemas:
          order_db:
            tables:
              biz_order:
                columns: [order_id, payment_status]
`);

describe('parseMysqlToolsConfig', () => {
  it('resolves env references and builds exact allowlists', () => {
    const [source] = parseMysqlToolsConfig(valid, 'test.yaml', env);
    expect(source).toMatchObject({
      id: 'orders',
      host: '127.0.0.1',
      port: 3307,
      database: 'order_db',
      username: 'reader',
      password: 's3cret',
      defaultSchema: 'order_db',
    });
    expect([...source.schemas.get('order_db')!.get('biz_order')!.columns]).toEqual([
      'order_id',
      'payment_status',
    ]);
    expect([...source.functions]).toEqual([
      'COUNT',
      'SUM',
      'AVG',
      'MIN',
      'MAX',
      'NOW',
      'CURRENT_TIMESTAMP',
      'CURRENT_DATE',
      'CURDATE',
      'UTC_TIMESTAMP',
      'UTC_DATE',
      'DATE_SUB',
      'DATE_ADD',
      'DATE_FORMAT',
      'DATE',
      'TIME',
      'YEAR',
      'MONTH',
      'DAY',
      'DAYOFMONTH',
      'DAYOFWEEK',
      'HOUR',
      'MINUTE',
      'SECOND',
      'TIMESTAMPDIFF',
      'TIMESTAMPADD',
      'DATEDIFF',
      'UNIX_TIMESTAMP',
      'FROM_UNIXTIME',
      'IFNULL',
      'COALESCE',
      'NULLIF',
      'IF',
      'ROUND',
      'FLOOR',
      'CEIL',
      'CEILING',
      'ABS',
      'MOD',
      'CONCAT',
      'CONCAT_WS',
      'LOWER',
      'UPPER',
      'LCASE',
      'UCASE',
      'LENGTH',
      'CHAR_LENGTH',
      'SUBSTRING',
      'SUBSTR',
      'LEFT',
      'RIGHT',
      'TRIM',
      'LTRIM',
      'RTRIM',
      'REPLACE',
    ]);
  });

  it.each([
    [
      'a literal password',
      valid.replace('${DB_PASS}', 'hunter2'),
      'password: must be an environment reference',
    ],
    ['an unset variable', valid.replace('${DB_PASS}', '${NOT_SET_ANYWHERE}'), 'NOT_SET_ANYWHERE is not set'],
    ['a wildcard column', valid.replace('order_id, payment_status', "'*'"), 'must be a plain SQL identifier'],
    [
      'a default schema outside the allowlist',
      valid.replace('default-schema: order_db', 'default-schema: other'),
      'default-schema must be one of allowed-schemas',
    ],
    [
      'credentials inside the url',
      valid.replace('url: ${DB_URL}', 'url: mysql://u:p@host/db'),
      'without credentials',
    ],
    [
      'an unknown key',
      valid.replace('        default-schema', '        jdbc-params: x\n        default-schema'),
      'jdbc-params',
    ],
    ['broken YAML', 'harness: [', 'not valid YAML'],
  ])('rejects %s naming the problem', (_case, text, message) => {
    expect(() => parseMysqlToolsConfig(text, 'test.yaml', env)).toThrow(ConfigValidationError);
    expect(() => parseMysqlToolsConfig(text, 'test.yaml', env)).toThrow(message);
  });

  it('never echoes a resolved secret in errors', () => {
    const broken = valid.replace('url: ${DB_URL}', 'url: ${DB_PASS}');
    expect(() => parseMysqlToolsConfig(broken, 'test.yaml', env)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('s3cret') }),
    );
  });
});

describe('hiddenColumnsOf: the column rules of one table', () => {
  const columns = ['id', 'phone', 'auth_code', 'authorized_at', 'hotel_id', 'customer_name', 'note'];
  it.each([
    ['the name rule alone', {}, ['phone', 'auth_code']],
    ['plus a listed column', { hidden: ['customer_name'] }, ['phone', 'auth_code', 'customer_name']],
    ['minus a shown column', { shown: ['auth_code'] }, ['phone']],
    ['both', { hidden: ['note'], shown: ['phone', 'auth_code'] }, ['note']],
  ])('%s', (_case, rules, hidden) => {
    expect([...hiddenColumnsOf(columns, rules, 'tables.t')]).toEqual(hidden);
  });

  it.each([
    ['a hidden name that is no column', { hidden: ['ssn'] }, 'tables.t.hidden-columns: ssn is not one of'],
    ['a shown name that is no column', { shown: ['email'] }, 'tables.t.shown-columns: email is not one of'],
    ['a column in both lists', { hidden: ['phone'], shown: ['phone'] }, 'phone is in both'],
    ['a shown column the rule does not hide', { shown: ['note'] }, 'note is not hidden by the name rule'],
  ])('refuses %s, naming it', (_case, rules, message) => {
    expect(() => hiddenColumnsOf(columns, rules, 'tables.t')).toThrow(ConfigValidationError);
    expect(() => hiddenColumnsOf(columns, rules, 'tables.t')).toThrow(message);
  });

  it('reads the rules from the allowlist file, per table', () => {
    const text = valid.replace(
      'columns: [order_id, payment_status]',
      'columns: [order_id, payment_status, buyer_phone, auth_code]\n                hidden-columns: [payment_status]\n                shown-columns: [auth_code]',
    );
    const [source] = parseMysqlToolsConfig(text, 'test.yaml', env);
    expect([...source.schemas.get('order_db')!.get('biz_order')!.hidden]).toEqual([
      'payment_status',
      'buyer_phone',
    ]);
    expect(() =>
      parseMysqlToolsConfig(
        text.replace('shown-columns: [auth_code]', 'shown-columns: [order_id]'),
        'test.yaml',
        env,
      ),
    ).toThrow(
      'harness.mysql-tools.data-sources.orders.allowed-schemas.order_db.tables.biz_order.shown-columns',
    );
  });
});

describe('refuseServiceDatabase', () => {
  const sources = (url: string, schema = 'order_db') =>
    parseMysqlToolsConfig(valid.replace(/order_db/g, schema), 'test.yaml', { ...env, DB_URL: url });
  const service = { host: '127.0.0.1', port: 3307, database: 'superbiz' };

  it.each([
    ['the same database in the url', 'mysql://127.0.0.1:3307/superbiz', 'order_db'],
    ['the service database as allowed schema', 'mysql://127.0.0.1:3307', 'superbiz'],
    ['another spelling of loopback', 'mysql://localhost:3307/superbiz', 'order_db'],
    ['IPv6 loopback', 'mysql://[::1]:3307/superbiz', 'order_db'],
    ['another letter case', 'mysql://127.0.0.1:3307/SuperBiz', 'order_db'],
  ])('stops start-up for %s, naming the data source', (_case, url, schema) => {
    expect(() => refuseServiceDatabase(sources(url, schema), service, 'test.yaml')).toThrow(
      new ConfigValidationError([
        "test.yaml: harness.mysql-tools.data-sources.orders: points at the service's own database " +
          '(DB_HOST/DB_PORT/DB_NAME); query_mysql may only read a separate business database',
      ]),
    );
  });

  it.each([
    ['another database on the same server', 'mysql://127.0.0.1:3307/order_db'],
    ['the same name on another port', 'mysql://127.0.0.1:3306/superbiz'],
    ['the same name on another host', 'mysql://db-business:3307/superbiz'],
  ])('accepts %s', (_case, url) => {
    expect(() => refuseServiceDatabase(sources(url), service, 'test.yaml')).not.toThrow();
  });
});
