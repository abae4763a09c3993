import { readFixture, summary } from '@test/support/log-fixtures';

describe('logstash JSON (logstash-logback-encoder)', () => {
  const read = readFixture('logstash/refund-service.json');

  it('is detected', () => expect(read.format).toBe('logstash-json'));

  it.each([
    [0, ['2026-12-05T02:15:02.310Z', 'INFO', 'refund-service', 'Refund R-778 queued']],
    [
      1,
      ['2026-12-05T02:15:03.990Z', 'ERROR', 'refund-service', 'Refund R-778 failed\njava.lang.IllegalStat'],
    ],
  ])('record %i: offset time, custom service field, stack trace joined', (index, expected) =>
    expect(summary(read.records[index], expected)).toEqual(expected),
  );
});
