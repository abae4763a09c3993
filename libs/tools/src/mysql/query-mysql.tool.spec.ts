import { MysqlQueryExecutor } from './mysql-query-executor';
import type { MysqlDataSourceConfig } from './mysql-tools-config';
import { queryMysqlSchema, queryMysqlTool } from './query-mysql.tool';
import type { QueryMysqlConfig } from './query-mysql.config';

describe('queryMysqlTool description from the configured data sources', () => {
  const inventory = {
    id: 'warehouse_ro',
    defaultSchema: 'inventory',
    schemas: new Map([
      [
        'inventory',
        new Map([['stock_level', { columns: ['sku', 'quantity', 'updated_at'], hidden: new Set() }]]),
      ],
    ]),
  } as unknown as MysqlDataSourceConfig;
  const tool = queryMysqlTool([inventory], {} as MysqlQueryExecutor, {} as QueryMysqlConfig);
  const dataSourceHelp = (tool.schema as ReturnType<typeof queryMysqlSchema>).shape.data_source.description;

  it('names the configured source, tables and columns', () => {
    expect(tool.description).toContain(
      '- warehouse_ro (default schema inventory): inventory.stock_level(quantity, sku, updated_at)',
    );
    expect(dataSourceHelp).toBe('Logical data source id, one of: warehouse_ro.');
  });

  it('mentions no business of the demo (orders, payments)', () => {
    for (const text of [tool.description, dataSourceHelp]) {
      expect(text).not.toMatch(/\borders?\b|payment|order_readonly|订单|支付/);
    }
  });

  it('says when no data source is configured', () => {
    const none = queryMysqlTool([], {} as MysqlQueryExecutor, {} as QueryMysqlConfig);
    expect(none.description).toContain('Data sources: (none configured).');
    expect((none.schema as ReturnType<typeof queryMysqlSchema>).shape.data_source.description).toBe(
      'Logical data source id (none is configured).',
    );
  });
});

describe('queryMysqlTool self-description', () => {
  const tool = queryMysqlTool(
    [{ id: 'order_readonly', schemas: new Map() } as unknown as MysqlDataSourceConfig],
    {} as MysqlQueryExecutor,
    {} as QueryMysqlConfig,
  );

  it.each<[string, unknown, string | undefined]>([
    [
      'a configured data source, never the SQL',
      { data_source: 'order_readonly', sql: 'DROP TABLE x' },
      'order_readonly',
    ],
    ['an unknown data source', { data_source: '<script>alert(1)</script>' }, undefined],
    ['arguments that are not an object', 'order_readonly', undefined],
  ])('names %s', (_name, args, detail) => {
    expect(tool.statusDetail?.(args)).toBe(detail);
  });

  it.each([
    ['order_readonly', 'order_readonly'],
    ['<img src=x onerror=alert(1)>', 'other'],
    ['ORDER_READONLY', 'other'],
  ])('summarises data_source %j as %j for the trace', (dataSource, shown) => {
    expect(tool.summarizeArgs({ data_source: dataSource, sql: 'SELECT 1', params: [] })).toEqual({
      data_source: shown,
      sql_chars: 8,
      param_count: 0,
    });
  });

  it('reads a verified result as a MYSQL reference with the SQL, params and exact rows', () => {
    expect(
      tool.evidenceOf({
        evidence_status: 'EVIDENCE_FOUND',
        tool_call_id: 'call_1',
        truncated: false,
        scope: { data_source: 'order_readonly', sql: 'SELECT id FROM t WHERE id = ?', params: [7] },
        columns: ['id'],
        rows: [[7]],
      }),
    ).toEqual({
      source_type: 'MYSQL',
      source: 'order_readonly',
      scope: 'SELECT id FROM t WHERE id = ? params=[7]',
      values: { columns: ['id'], rows: [[7]] },
      demo: false,
    });
  });
});
