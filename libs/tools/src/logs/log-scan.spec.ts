import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_JSON_FIELDS, formatById, LogFormatId, RecordReader } from './formats';
import { matchesLogQuery, parseLogQuery } from './log-match';
import { scanFiles, ScanFile, ScanTask } from './log-scan';

/**
 * The scan against its oracle: every line parsed by the format's reader and matched exactly, no byte
 * test. Each row is a class of text a format decodes or rewrites (so the line's bytes and its parsed
 * text differ) or a record the byte test could cut differently from the reader.
 */
describe('scanFiles finds exactly what reading every line finds', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'log-scan-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const T = '2026-01-01T00:00:00Z';
  const TS = (second: number) => `2026-01-01 00:00:${String(second).padStart(2, '0')}.000`;

  const fileOf = (name: string, text: string, format: LogFormatId): ScanFile => {
    const path = join(dir, name);
    writeFileSync(path, text);
    const { size, mtimeMs } = statSync(path);
    return {
      file: name,
      path,
      format,
      service: null,
      context: { timeZone: 'UTC', referenceTime: mtimeMs, fields: DEFAULT_JSON_FIELDS },
      size,
      modified: mtimeMs,
    };
  };

  /** Every line through the format's reader, every record matched: what the scan must equal. */
  const oracle = (text: string, file: ScanFile, query: string): string[] => {
    const terms = parseLogQuery(query);
    const reader = new RecordReader(formatById(file.format), file.context);
    const found: string[] = [];
    const take = (step: ReturnType<RecordReader['push']>[number]) => {
      if (step.kind !== 'record') return;
      const { record } = step;
      const event = { ...record, service: record.service ?? 'unknown' };
      if (matchesLogQuery(event, terms, {})) found.push(record.message);
    };
    for (const line of text.split('\n')) {
      const bare = line.endsWith('\r') ? line.slice(0, -1) : line;
      if (bare.trim() !== '') reader.push(bare).forEach(take);
    }
    reader.end().forEach(take);
    return found;
  };

  const logback = (lines: string[]) => `${lines.join('\n')}\n`;
  /** A Docker json-file line; `log` is written as it stands in the JSON (escapes included). */
  const docker = (log: string, time = T) => `{"log":"${log}\\n","stream":"stdout","time":"${time}"}`;

  it.each<[string, LogFormatId, string, string, number]>([
    [
      'a letter written as a JSON \\u escape',
      'json',
      'timeout',
      `{"time":"${T}","msg":"\\u0074imeout"}\n`,
      1,
    ],
    [
      'the same in ECS',
      'ecs-json',
      'timeout',
      `{"@timestamp":"${T}","log.level":"info","message":"\\u0074imeout"}\n`,
      1,
    ],
    [
      'the same in an application line Docker wrapped',
      'docker-json',
      'timeout',
      // A record after it: the file's last record is always read (the next chunk may continue it).
      `${docker('\\u0074imeout')}\n${docker('other', '2026-01-01T00:00:01Z')}\n`,
      1,
    ],
    [
      'a control character an object message re-escapes (\\u0009 becomes \\t)',
      'json',
      'tfoo',
      `{"time":"${T}","msg":{"k":"a\\u0009foo"}}\n`,
      1,
    ],
    [
      'a 19-digit id, searched as written',
      'json',
      '1234567890123456789',
      `{"time":"${T}","msg":"x","request_id":1234567890123456789}\n`,
      1,
    ],
    [
      'a number in exponent form, as written',
      'json',
      '504',
      `{"time":"${T}","msg":"x","status":5.04e2}\n`,
      0,
    ],
    [
      'a decimal JavaScript prints with an exponent (0.0000001 is 1e-7)',
      'json',
      '1e',
      `{"time":"${T}","msg":{"latency":0.0000001}}\n`,
      0,
    ],
    [
      '17 significant digits around a point, as written',
      'json',
      '123456789',
      `{"time":"${T}","msg":"x","request_id":12345678.123456789}\n`,
      1,
    ],
    [
      "an escaped backslash (\\u005c) Docker holds before the application line's escape",
      'docker-json',
      'timeout',
      `${docker(`{\\"time\\":\\"${T}\\",\\"msg\\":\\"\\u005cu0074imeout\\"}`)}\n${docker('other', '2026-01-01T00:00:01Z')}\n`,
      1,
    ],
    [
      'journald: a byte-array MESSAGE after a tab',
      'journald-json',
      'hello',
      '{"__REALTIME_TIMESTAMP":"1767225600000000","MESSAGE":\t[104,101,108,108,111]}\n',
      1,
    ],
    ['logfmt: an empty value is no "null"', 'logfmt', 'null', `time=${T} msg=hello k=\n`, 0],
    ['logfmt: a bare key is no "true"', 'logfmt', 'true', `time=${T} msg\n`, 0],
    [
      'logfmt: a backslash the parser drops, joining words',
      'logfmt',
      'foobar',
      `time=${T} msg=foo\\bar\n`,
      1,
    ],
    ['logfmt: an escaped character in a key', 'logfmt', 'c1', `time=${T} msg=x ab\\c=1\n`, 1],
    ['logfmt: a tab inside a value re-quoted', 'logfmt', 'tfoo', `time=${T} msg=x k=a\tfoo\n`, 0],
    [
      'logfmt inside Docker: a backslash the parser drops',
      'docker-json',
      'foobar',
      `${docker(`time=${T} msg=foo\\\\bar`)}\n${docker('other', '2026-01-01T00:00:01Z')}\n`,
      1,
    ],
    [
      'journald: a MESSAGE byte array written with a space',
      'journald-json',
      'hello',
      '{"__REALTIME_TIMESTAMP":"1767225600000000","MESSAGE": [104,101,108,108,111]}\n',
      1,
    ],
    [
      'journald: the MESSAGE key written with an escape',
      'journald-json',
      'hello',
      '{"__REALTIME_TIMESTAMP":"1767225600000000","MESS\\u0041GE":[104,101,108,108,111]}\n',
      1,
    ],
    [
      'logback: an unreadable line inside a record does not end it',
      'logback',
      'alpha beta',
      logback([
        `${TS(0)} INFO first`,
        `${TS(1)} ERROR alpha failed`,
        `${TS(2)} retry scheduled`,
        '\tat beta',
        `${TS(3)} INFO z`,
      ]),
      1,
    ],
    [
      'logback: a JSON payload line inside a record',
      'logback',
      'beta',
      logback([`${TS(0)} INFO p beta`, `${TS(1)} INFO a`, '{"orderId":1}', '\tat beta', `${TS(3)} INFO z`]),
      2,
    ],
    [
      'Docker: a line that is no JSON between a record and its stack line',
      'docker-json',
      'alpha beta',
      [docker('alpha'), 'GARBAGE', docker('\\tat beta'), docker('other', '2026-01-01T00:00:01Z'), ''].join(
        '\n',
      ),
      1,
    ],
    [
      'logback: blank lines the reader skips inside a record (more than it joins)',
      'logback',
      'zebra connection',
      `${TS(0)} INFO zebra start\n${'\n'.repeat(600)}\tat tail connection\n${TS(1)} INFO z end\n`,
      1,
    ],
  ])('%s', async (_name, format, query, text, count) => {
    const file = fileOf('case.log', text, format);
    const task: ScanTask = {
      files: [file],
      window: { from: 0, to: Date.parse('2027-01-01T00:00:00Z') },
      terms: parseLogQuery(query),
      filters: {},
      maxLineBytes: 1024 * 1024,
      maxMatches: 1000,
      maxMatchBytes: 1024 * 1024,
    };
    const expected = oracle(text, file, query);
    expect(expected).toHaveLength(count);
    const outcome = await scanFiles(task, () => false);
    expect(outcome.matches.map((match) => match.message)).toEqual(expected);
  });
});
