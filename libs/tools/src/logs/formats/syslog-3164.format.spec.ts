import { contextOf, readFixture, summary } from '@test/support/log-fixtures';
import { bsdTime, SYSLOG_3164_FORMAT } from './syslog-3164.format';

describe('syslog RFC 3164 / traditional file', () => {
  const read = readFixture('syslog-3164/messages', { timeZone: 'Asia/Shanghai' });

  it('is detected', () => expect(read.format).toBe('syslog-3164'));

  it.each([
    [0, ['2026-12-05T02:15:01.000Z', 'INFO', 'sshd', 'Accepted publickey for deploy from 10.0']],
    [1, ['2026-12-05T02:15:03.000Z', 'ERROR', 'payment-agent', 'payment gateway unreachable']],
    [2, ['2026-12-05T02:15:04.000Z', 'INFO', 'kernel', '[12345.678] Out of memory: Killed proce']],
    [3, ['2026-12-05T02:15:05.123Z', 'INFO', 'systemd', 'payment-gateway.service: Main process e']],
  ])('record %i: BSD date in the source zone, RFC 3339 with its own', (index, expected) =>
    expect(summary(read.records[index], expected)).toEqual(expected),
  );

  it.each([
    // a December line in a file last written in January belongs to the year before
    ['2027-01-02T00:00:00Z', 12, '2026-12-31T23:59:00.000Z'],
    ['2026-12-05T12:00:00Z', 12, '2026-12-31T23:59:00.000Z'.replace('2026-12-31', '2025-12-31')],
    ['2026-12-31T23:00:00Z', 12, '2026-12-31T23:59:00.000Z'],
  ])('year of a year-less date, file written %s', (written, month, iso) =>
    expect(new Date(bsdTime('UTC', Date.parse(written), month, 31, 23, 59, 0)).toISOString()).toBe(iso),
  );

  it('reads a level word when no PRI is written', () => {
    const record = SYSLOG_3164_FORMAT.parse('Dec  5 10:15:01 h app[1]: ERROR db down', contextOf());
    expect(typeof record !== 'string' && [record.level, record.levelFrom]).toEqual(['ERROR', 'INFERRED']);
  });

  it('refuses other text', () =>
    expect(SYSLOG_3164_FORMAT.parse('hello world', contextOf())).toBe('NOT_THIS_FORMAT'));
});
