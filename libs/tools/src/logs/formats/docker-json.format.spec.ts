import { contextOf, readFixture, summary } from '@test/support/log-fixtures';
import { DOCKER_JSON_FORMAT } from './docker-json.format';

describe('Docker json-file', () => {
  const read = readFixture('docker/3f9a1c2b7d4e-json.log');

  it('is detected, and the stack trace line is joined to its record', () => {
    expect(read.format).toBe('docker-json');
    expect(read.records).toHaveLength(5);
    expect(read.unreadable).toEqual([]);
  });

  it.each([
    // Spring Boot text inside `log`: its level; the time is Docker's (UTC), not the zone-less text's
    [0, ['2026-12-05T02:15:01.201Z', 'INFO', null, '1 --- [           main] c.s.inventory.Stoc']],
    [1, ['2026-12-05T02:15:03.878Z', 'WARN', null, '1 --- [nio-8081-exec-2] c.s.inventory.Stoc']],
    // free text on stderr without a level word: the stream's WARN
    [2, ['2026-12-05T02:15:04.100Z', 'WARN', null, 'Exception in thread "pool-3-thread-1" ja']],
    // JSON inside `log`: its level and service
    [3, ['2026-12-05T02:15:05.000Z', 'ERROR', 'inventory-sync', 'stock sync failed']],
    // stdout without a level: INFO; the service from attrs.tag
    [4, ['2026-12-05T02:00:00.000Z', 'INFO', 'inventory-service', 'listening on :8081']],
  ])('record %i', (index, expected) => expect(summary(read.records[index], expected)).toEqual(expected));

  it('joins the stack line', () =>
    expect(read.records[2].message).toContain('\n\tat com.shop.inventory.LockService.acquire'));

  it('reads the embedded text with the source zone only for its level, never its time', () => {
    const line =
      '{"log":"2026-12-05 10:15:03.877 ERROR x\\n","stream":"stdout","time":"2026-12-05T02:15:03Z"}';
    const record = DOCKER_JSON_FORMAT.parse(line, contextOf({ timeZone: 'Asia/Shanghai' }));
    expect(record).toMatchObject({ at: Date.parse('2026-12-05T02:15:03Z'), level: 'ERROR' });
  });

  it.each([
    ['{"log":"x\\n","stream":"stdout"}', 'NOT_THIS_FORMAT'],
    ['{"log":"\\n","stream":"stdout","time":"2026-12-05T02:15:03Z"}', 'NO_MESSAGE'],
  ])('refuses %s', (line, reason) => expect(DOCKER_JSON_FORMAT.parse(line, contextOf())).toBe(reason));
});
