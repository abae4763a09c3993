import { contextOf, readFixture, summary } from '@test/support/log-fixtures';
import { structuredData, SYSLOG_5424_FORMAT } from './syslog-5424.format';

describe('syslog RFC 5424', () => {
  const read = readFixture('syslog-5424/syslog');

  it('is detected', () => expect(read.format).toBe('syslog-5424'));

  it.each([
    [0, ['2026-12-05T02:15:02.003Z', 'INFO', 'mysqld', "[Note] Aborted connection 4711 to db: 's"]],
    [1, ['2026-12-05T02:15:03.500Z', 'ERROR', 'payment-db-proxy', 'backend pool exhausted, queue=37']],
    [2, ['2026-12-05T02:15:04.000Z', 'INFO', 'cron', 'job started']],
  ])('record %i: PRI severity, APP-NAME, BOM stripped', (index, expected) =>
    expect(summary(read.records[index], expected)).toEqual(expected),
  );

  it('keeps structured data as fields', () =>
    expect(read.records[1].fields).toMatchObject({
      order: 'ORD-20261205-004217',
      retry: '1',
      host: 'db-01',
      msgid: 'ID47',
    }));

  it.each([
    ['-', {}, ''],
    ['[a@1 k="v \\"q\\" \\]"] msg', { k: 'v "q" ]' }, ' msg'],
    ['[a k="1"][b j="2"]', { k: '1', j: '2' }, ''],
  ])('structuredData(%s)', (text, params, rest) => expect(structuredData(text)).toEqual({ params, rest }));

  it.each([['[a k=1] msg'], ['[a k="1" msg']])('refuses malformed structured data %s', (text) =>
    expect(structuredData(text)).toBeNull(),
  );

  it.each([
    ['<34>1 - host app - - - msg', 'NO_TIMESTAMP'],
    ['<999>1 2026-12-05T02:15:03Z h a - - - m', 'NOT_THIS_FORMAT'],
    ['Dec  5 10:15:01 web-01 sshd[1]: x', 'NOT_THIS_FORMAT'],
  ])('refuses %s', (line, reason) => expect(SYSLOG_5424_FORMAT.parse(line, contextOf())).toBe(reason));
});
