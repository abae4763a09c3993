import { MysqlRawResponse, projectMysqlResult } from './mysql-result-projector';

const LIMITS = { maxRows: 3, maxCellChars: 20, maxTotalBytes: 2000 };

function raw(
  rows: Record<string, unknown>[],
  columns = Object.keys(rows[0] ?? { order_id: 1 }),
): MysqlRawResponse {
  return {
    data_source: 'order_readonly',
    sql: 'SELECT `order_id` FROM `biz_order` WHERE `order_id` = ? LIMIT 50',
    params: ['order-123'],
    columns,
    rows,
  };
}

describe('projectMysqlResult', () => {
  it('returns columns and row objects with the query scope', () => {
    const projection = projectMysqlResult(
      raw([{ order_id: 'order-123', payment_status: 'FAILED', amount: '12.50' }]),
      LIMITS,
    );
    expect(projection).toEqual({
      evidenceStatus: 'EVIDENCE_FOUND',
      result: {
        source_kind: 'MYSQL',
        scope: {
          data_source: 'order_readonly',
          sql: 'SELECT `order_id` FROM `biz_order` WHERE `order_id` = ? LIMIT 50',
          params: ['order-123'],
        },
        columns: ['order_id', 'payment_status', 'amount'],
        rows: [{ order_id: 'order-123', payment_status: 'FAILED', amount: '12.50' }],
        returned_count: 1,
      },
      truncated: false,
    });
  });

  it('reports NO_EVIDENCE with the scope and zero rows, not an error', () => {
    const projection = projectMysqlResult(raw([], ['order_id']), LIMITS);
    expect(projection.evidenceStatus).toBe('NO_EVIDENCE');
    expect(projection.result).toMatchObject({
      columns: ['order_id'],
      rows: [],
      returned_count: 0,
      scope: { data_source: 'order_readonly' },
    });
    expect(projection.truncated).toBe(false);
  });

  it.each<[string, Record<string, unknown>[], object, boolean]>([
    ['rows over the limit', [1, 2, 3, 4, 5].map((n) => ({ n })), { returned_count: 3 }, true],
    ['a long text cell', [{ note: 'x'.repeat(50) }], { rows: [{ note: `${'x'.repeat(19)}…` }] }, true],
    [
      'a JSON cell',
      [{ payload: { a: 'y'.repeat(40) } }],
      { rows: [{ payload: `{"a":"${'y'.repeat(13)}…` }] },
      true,
    ],
    [
      'a binary cell',
      [{ blob: { binary_base64: Buffer.from('hello').toString('base64') } }],
      { rows: [{ blob: '[binary 5 bytes]' }] },
      true,
    ],
    ['null and numbers', [{ a: null, b: 3, c: true }], { rows: [{ a: null, b: 3, c: true }] }, false],
  ])('bounds %s', (_name, rows, expected, truncated) => {
    const projection = projectMysqlResult(raw(rows), LIMITS);
    expect(projection.result).toMatchObject(expected);
    expect(projection.truncated).toBe(truncated);
  });

  it('stops adding rows at the total byte limit', () => {
    const rows = Array.from({ length: 3 }, (_, i) => ({ i, text: 'z'.repeat(20) }));
    const projection = projectMysqlResult(raw(rows), { ...LIMITS, maxTotalBytes: 70 });
    expect(projection.result.returned_count).toBe(1);
    expect(projection.truncated).toBe(true);
  });

  it('redacts sensitive columns by name and sensitive values by pattern', () => {
    const projection = projectMysqlResult(
      raw([
        {
          order_id: 'o-1',
          card_number: '4111111111111111',
          email: 'a@b.io',
          note: 'contact bob@example.com',
          phone_no: '13812345678',
        },
      ]),
      { ...LIMITS, maxCellChars: 100 },
    );
    expect(projection.result.rows).toEqual([
      {
        order_id: 'o-1',
        card_number: '[REDACTED]',
        email: '[REDACTED]',
        note: 'contact [REDACTED_EMAIL]',
        phone_no: '[REDACTED]',
      },
    ]);
  });

  it('hides exactly the columns the SQL policy read as hidden, whatever they are called', () => {
    const projection = projectMysqlResult(
      {
        ...raw([{ contact: '13812345678', auth_code: 'A-77', note: 'ok' }]),
        hidden_columns: ['contact'],
      },
      { ...LIMITS, maxCellChars: 100 },
    );
    expect(projection.result.rows).toEqual([{ contact: '[REDACTED]', auth_code: 'A-77', note: 'ok' }]);
    expect(projection.result.hidden_columns).toEqual(['contact']);
  });
});
