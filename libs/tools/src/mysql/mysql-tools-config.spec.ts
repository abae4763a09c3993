import { ConfigValidationError } from '@app/config';
import { parseMysqlToolsConfig } from './mysql-tools-config';

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
    expect([...source.functions]).toEqual(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX']);
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
