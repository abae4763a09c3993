import { contextOf, readFixture, summary } from '@test/support/log-fixtures';
import { BUNYAN_JSON_FORMAT, PINO_JSON_FORMAT } from './pino-json.format';

describe('pino and bunyan JSON', () => {
  it.each([
    [
      'pino/checkout.log',
      'pino-json',
      0,
      ['2026-12-05T02:15:01.000Z', 'INFO', 'checkout', 'request received'],
    ],
    [
      'pino/checkout.log',
      'pino-json',
      1,
      ['2026-12-05T02:15:03.000Z', 'ERROR', 'checkout', 'checkout failed [FetchError: payment-serv'],
    ],
    [
      'pino/checkout.log',
      'pino-json',
      2,
      ['2026-12-05T02:15:04.000Z', 'WARN', 'checkout', 'request completed with error'],
    ],
    [
      'bunyan/notifier.log',
      'bunyan-json',
      0,
      ['2026-12-05T02:15:01.000Z', 'INFO', 'notifier', 'sent receipt for ORD-20261205-004217'],
    ],
    [
      'bunyan/notifier.log',
      'bunyan-json',
      1,
      ['2026-12-05T02:15:09.000Z', 'ERROR', 'notifier', 'SMTP relay unreachable'],
    ],
  ])('%s is %s, record %i', (file, format, index, expected) => {
    const read = readFixture(file);
    expect(read.format).toBe(format);
    expect(summary(read.records[index], expected)).toEqual(expected);
  });

  it('maps the request id and status of pino-http', () => {
    const read = readFixture('pino/checkout.log');
    expect(read.records[0].fields).toMatchObject({
      request_id: 'req-1f',
      method: 'POST',
      path: '/api/v1/checkout',
    });
    expect(read.records[2].fields.status).toBe('502');
  });

  it.each([
    [PINO_JSON_FORMAT, '{"level":"info","time":1796436901000,"msg":"x"}'],
    [BUNYAN_JSON_FORMAT, '{"level":30,"time":"2026-12-05T02:15:01Z","msg":"x","name":"a"}'],
  ])('%# needs its markers', (format, line) =>
    expect(format.parse(line, contextOf())).toBe('NOT_THIS_FORMAT'),
  );
});
