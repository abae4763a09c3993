import { contextOf, readFixture, summary } from '@test/support/log-fixtures';
import { JOURNALD_JSON_FORMAT } from './journald-json.format';

describe('journald JSON (journalctl -o json)', () => {
  const read = readFixture('journald/payment-gateway.journal.json');

  it('is detected', () => expect(read.format).toBe('journald-json'));

  it.each([
    [0, ['2026-12-05T02:15:01.123Z', 'INFO', 'payment-gateway', 'Gateway connection pool initialised size']],
    [1, ['2026-12-05T02:15:03.500Z', 'ERROR', 'payment-gateway', 'Upstream alipay responded 504 after 3000']],
    // a scope unit: the identifier; MESSAGE written as bytes
    [2, ['2026-12-05T02:15:04.000Z', 'WARN', 'systemd', 'payment-gateway.service: Watchdog timeout']],
  ])('record %i: µs time, PRIORITY, unit as service', (index, expected) =>
    expect(summary(read.records[index], expected)).toEqual(expected),
  );

  it('is not generic JSON without its fields', () =>
    expect(JOURNALD_JSON_FORMAT.parse('{"MESSAGE":"x"}', contextOf())).toBe('NOT_THIS_FORMAT'));
});
