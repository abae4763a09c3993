import { contextOf, readFixture, summary } from '@test/support/log-fixtures';
import { JSON_FORMAT } from './json.format';

describe('generic JSON lines', () => {
  const read = readFixture('json/application-order.jsonl');

  it('is detected', () => expect(read.format).toBe('json'));

  it.each([
    [0, ['2026-12-05T02:15:00.000Z', 'WARN', 'order-service', 'HikariPool-1 - Connection is not availab']],
    [1, ['2026-12-05T02:15:05.000Z', 'ERROR', 'order-service', '{"event":"pool exhausted","active":50}']],
  ])('record %i: first usable field per role', (index, expected) =>
    expect(summary(read.records[index], expected)).toEqual(expected),
  );

  it.each([
    [
      '{"when":"2026-12-05T02:15:00","sev":"warn","text":"x"}',
      { timestamp: ['when'], level: ['sev'], service: [], message: ['text'] },
      '2026-12-05T02:15:00.000Z',
    ],
  ])("a file rule's field names replace the defaults", (line, fields, iso) => {
    const record = JSON_FORMAT.parse(line, contextOf({ fields }));
    expect(typeof record === 'string' ? record : new Date(record.at).toISOString()).toBe(iso);
  });

  it.each([
    ['{"msg":"no time"}', 'NO_TIMESTAMP'],
    ['{"time":"2026-12-05T02:15:00Z"}', 'NO_MESSAGE'],
    ['[1,2]', 'NOT_JSON'],
  ])('refuses %s', (line, reason) => expect(JSON_FORMAT.parse(line, contextOf())).toBe(reason));

  it('reads a zone-less time in the source zone', () => {
    const record = JSON_FORMAT.parse(
      '{"time":"2026-12-05 10:15:00","msg":"x"}',
      contextOf({ timeZone: 'Asia/Shanghai' }),
    );
    expect(typeof record !== 'string' && new Date(record.at).toISOString()).toBe('2026-12-05T02:15:00.000Z');
  });
});
