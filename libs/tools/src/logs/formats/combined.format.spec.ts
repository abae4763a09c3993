import { contextOf, readFixture, summary } from '@test/support/log-fixtures';
import { COMBINED_FORMAT } from './combined.format';

describe('nginx/Apache combined access log', () => {
  const read = readFixture('combined/access.log');

  it('is detected, with topic ACCESS', () => {
    expect(read.format).toBe('combined');
    expect(COMBINED_FORMAT.topic).toBe('ACCESS');
  });

  it.each([
    [
      0,
      ['2026-12-05T02:15:00.000Z', 'INFO', null, '10.0.1.15 - - "POST /api/v1/payments HTTP'],
      { status: '200', path: '/api/v1/payments', method: 'POST' },
    ],
    [
      1,
      ['2026-12-05T02:15:03.000Z', 'ERROR', null, '10.0.1.16 - - "POST /api/v1/payments?ret'],
      { status: '504', path: '/api/v1/payments' },
    ],
    [
      2,
      ['2026-12-05T02:15:04.000Z', 'WARN', null, '10.0.1.17 - alice "GET /api/v1/orders/ORD'],
      { status: '404', user: 'alice' },
    ],
    [
      3,
      ['2026-12-05T02:15:05.000Z', 'INFO', null, '::1 - - "GET /healthz HTTP/1.1" 200 2'],
      { path: '/healthz' },
    ],
  ])('record %i: time with offset, level from status', (index, expected, fields) => {
    expect(summary(read.records[index], expected)).toEqual(expected);
    expect(read.records[index].fields).toMatchObject(fields);
  });

  it('refuses an error log line', () =>
    expect(
      COMBINED_FORMAT.parse('2026/12/05 10:15:03 [error] 12#12: *1 upstream timed out', contextOf()),
    ).toBe('NOT_THIS_FORMAT'));
});
