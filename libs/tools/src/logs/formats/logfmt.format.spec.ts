import { contextOf, readFixture, summary } from '@test/support/log-fixtures';
import { LOGFMT_FORMAT } from './logfmt.format';

describe('logfmt', () => {
  const read = readFixture('logfmt/inventory.log');

  it('is detected', () => expect(read.format).toBe('logfmt'));

  it.each([
    [0, ['2026-12-05T02:15:00.120Z', 'INFO', 'inventory', 'reservation ok sku=sku-118 order_id=ORD-2']],
    [
      1,
      [
        '2026-12-05T02:15:03.500Z',
        'ERROR',
        'inventory',
        'stock db timeout err="dial tcp 10.0.3.7:3306: i/o timeout" request_id=r-77',
      ],
    ],
    [2, ['2026-12-05T02:15:04.000Z', 'WARN', null, 'retrying attempt=2']],
  ])('record %i: the other pairs stay in the message', (index, expected) =>
    expect(summary(read.records[index], expected)).toEqual(expected),
  );

  it('maps request ids', () => expect(read.records[1].fields.request_id).toBe('r-77'));

  it.each([
    ['plain text line', 'NOT_THIS_FORMAT'],
    ['a=1 b=2', 'NOT_THIS_FORMAT'],
    ['time=never msg=x', 'NO_TIMESTAMP'],
  ])('refuses %s', (line, reason) => expect(LOGFMT_FORMAT.parse(line, contextOf())).toBe(reason));
});
