import { isValidTimeZone, timestampOf, wallTimeToUtc } from './timestamps';

describe('timestamps', () => {
  it.each([
    ['2026-12-05T10:15:03.123+08:00', 'UTC', '2026-12-05T02:15:03.123Z'],
    ['2026-12-05 10:15:03,123', 'Asia/Shanghai', '2026-12-05T02:15:03.123Z'],
    ['2026-12-05 10:15:03', '+08:00', '2026-12-05T02:15:03.000Z'],
    ['2026-12-05 10:15:03', 'UTC', '2026-12-05T10:15:03.000Z'],
    ['2026-07-01 12:00:00', 'Europe/Berlin', '2026-07-01T10:00:00.000Z'],
    ['2026-12-05T02:15:03.123456789Z', 'Asia/Shanghai', '2026-12-05T02:15:03.123Z'],
    ['2026-12-05 02:15:03 UTC', 'Asia/Shanghai', '2026-12-05T02:15:03.000Z'],
    [1796436903, 'UTC', '2026-12-05T02:15:03.000Z'],
    ['1796436903500', 'UTC', '2026-12-05T02:15:03.500Z'],
    ['1796436903500000', 'UTC', '2026-12-05T02:15:03.500Z'],
  ])('%s in %s', (value, zone, iso) => expect(new Date(timestampOf(value, zone)).toISOString()).toBe(iso));

  it.each([['yesterday'], ['2026-13-05 10:00:00'], [''], [null], [-5]])('%s is unreadable', (value) =>
    expect(timestampOf(value, 'UTC')).toBeNaN(),
  );

  it('takes the earlier instant of a wall time repeated by a DST change', () =>
    expect(new Date(wallTimeToUtc('Europe/Berlin', 2026, 10, 25, 2, 30, 0, 0)).toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    ));

  it.each([
    ['UTC', true],
    ['Asia/Shanghai', true],
    ['+08:00', true],
    ['-0530', true],
    ['Mars/Olympus', false],
    ['UTC+8', false],
  ])('time zone %s valid: %s', (zone, valid) => expect(isValidTimeZone(zone)).toBe(valid));
});
