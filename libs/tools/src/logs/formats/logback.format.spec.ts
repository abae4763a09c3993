import { contextOf, readFixture, summary } from '@test/support/log-fixtures';
import { LOGBACK_FORMAT } from './logback.format';

describe('logback/log4j pattern text', () => {
  // Written in local time (UTC+8) without a zone, as logback's default %d does.
  const read = readFixture('logback/payment-service.log', { timeZone: 'Asia/Shanghai' });

  it('is detected; the stack trace is one record with its event, nothing unreadable', () => {
    expect(read.format).toBe('logback');
    expect(read.records).toHaveLength(5);
    expect(read.unreadable).toEqual([]);
  });

  it.each([
    [0, ['2026-12-05T02:15:01.204Z', 'INFO', null, '[http-nio-8080-exec-3] c.s.payment.Payment']],
    [1, ['2026-12-05T02:15:03.211Z', 'ERROR', null, '[http-nio-8080-exec-3] c.s.payment.AlipayC']],
    [2, ['2026-12-05T02:15:03.950Z', 'WARN', null, '[HikariPool-1 housekeeper] com.zaxxer.hik']],
    // Spring Boot 3 with its own zone and application name
    [3, ['2026-12-05T02:15:04.120Z', 'ERROR', 'payment-service', '2211 --- [payment-service] [nio-8080-e']],
    [4, ['2026-12-05T02:15:05.001Z', 'DEBUG', null, '[main] com.shop.payment.Config: pool.max']],
  ])('record %i: zone-less times in the source zone', (index, expected) =>
    expect(summary(read.records[index], expected)).toEqual(expected),
  );

  it('joins the stack trace lines to their event', () => {
    expect(read.records[1].message.split('\n')).toHaveLength(6);
    expect(read.records[1].message).toContain('Caused by: java.io.IOException: connection reset');
  });

  it('reads UTC when no zone is configured', () =>
    expect(summary(readFixture('logback/payment-service.log').records[0])[0]).toBe(
      '2026-12-05T10:15:01.204Z',
    ));

  it.each([
    ['	at com.x.Y.z(Y.java:1)', '	at com.x.Y.z(Y.java:1)'],
    ['2026-12-05 10:15:01.204 INFO x', null],
    ['{"time":"2026-12-05T02:15:00Z","msg":"x"}', null],
    ['Caused by: java.io.IOException: {"code":1}', 'Caused by: java.io.IOException: {"code":1}'],
  ])('continuation(%s)', (line, expected) => expect(LOGBACK_FORMAT.continuation?.(line)).toBe(expected));

  it('needs a level word', () =>
    expect(LOGBACK_FORMAT.parse('2026-12-05 10:15:01 something happened', contextOf())).toBe(
      'NOT_THIS_FORMAT',
    ));
});
