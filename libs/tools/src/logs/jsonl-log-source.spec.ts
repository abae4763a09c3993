import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolFailure } from '@app/harness';
import { logsConfigOf, ToolsEnv } from '../config/tools.config';
import {
  DEFAULT_JSONL_FIELDS,
  globToRegExp,
  JsonlLogSource,
  JsonlLogSourceConfig,
  normalizeLevel,
  outsideWindow,
  parseLine,
  parseTopicGlobs,
  readLine,
  timeKeysOf,
  timestampOf,
} from './jsonl-log-source';
import { projectLogs } from './query-logs-result-projector';

const FIELDS = DEFAULT_JSONL_FIELDS;

describe('parseTopicGlobs', () => {
  it('maps topics to file-name globs', () => {
    expect(parseTopicGlobs('APPLICATION=app*.jsonl|svc-?.jsonl, ACCESS=access.jsonl')).toEqual({
      APPLICATION: ['app*.jsonl', 'svc-?.jsonl'],
      ACCESS: ['access.jsonl'],
    });
  });
  it.each([
    ['UNKNOWN=a.jsonl', /topics must be one of/],
    ['APPLICATION', /TOPIC=glob/],
    ['APPLICATION=a=b', /TOPIC=glob/],
    ['APPLICATION=../etc/*.jsonl', /without path separators/],
    ['APPLICATION=.hidden', /without path separators/],
    ['APPLICATION=a.jsonl,APPLICATION=b.jsonl', /twice/],
    [' , ', /no topic/],
  ])('refuses %j', (text, message) => expect(() => parseTopicGlobs(text)).toThrow(message));
});

describe('globToRegExp', () => {
  it.each([
    ['app*.jsonl', 'app-2026-12-01.jsonl', true],
    ['app*.jsonl', 'app.jsonl.gz', false],
    ['app?.jsonl', 'app1.jsonl', true],
    ['app?.jsonl', 'app12.jsonl', false],
    ['a+b(1).jsonl', 'a+b(1).jsonl', true],
    ['a.jsonl', 'aXjsonl', false],
  ])('%s matches %s: %s', (glob, name, expected) => expect(globToRegExp(glob).test(name)).toBe(expected));
});

describe('normalizeLevel', () => {
  it.each<[unknown, string]>([
    ['error', 'ERROR'],
    ['FATAL', 'ERROR'],
    ['warning', 'WARN'],
    ['Warn', 'WARN'],
    ['notice', 'INFO'],
    ['trace', 'DEBUG'],
    [50, 'ERROR'],
    [40, 'WARN'],
    [30, 'INFO'],
    [20, 'DEBUG'],
    [60, 'ERROR'],
    [10, 'DEBUG'],
    ['50', 'ERROR'],
    // one-letter levels (logcat, glog, Serilog compact)
    ['E', 'ERROR'],
    ['W', 'WARN'],
    ['I', 'INFO'],
    ['D', 'DEBUG'],
    ['F', 'ERROR'],
    ['t', 'DEBUG'],
    // syslog severities
    [0, 'ERROR'],
    [3, 'ERROR'],
    ['4', 'WARN'],
    [5, 'INFO'],
    [6, 'INFO'],
    [7, 'DEBUG'],
    // Java util logging, Python
    ['SEVERE', 'ERROR'],
    ['CRITICAL', 'ERROR'],
    ['FINE', 'DEBUG'],
    ['something', 'INFO'],
    [undefined, 'INFO'],
  ])('%j -> %s', (value, level) => expect(normalizeLevel(value)).toBe(level));
});

describe('timestampOf', () => {
  it.each<[unknown, string | null]>([
    ['2026-12-03T13:27:07Z', '2026-12-03T13:27:07.000Z'],
    ['2026-12-03T13:27:07.624+08:00', '2026-12-03T05:27:07.624Z'],
    ['2026-12-03T13:27:07.624-0500', '2026-12-03T18:27:07.624Z'],
    ['2026-12-03T13:27:07.123456789Z', '2026-12-03T13:27:07.123Z'],
    // without zone: UTC, never the machine's local zone
    ['2026-12-03T13:27:07', '2026-12-03T13:27:07.000Z'],
    ['2026-12-03T13:27:07.5', '2026-12-03T13:27:07.500Z'],
    // log4j / logback default layout
    ['2026-12-03 13:27:07,624', '2026-12-03T13:27:07.624Z'],
    ['2026-12-03 13:27:07.624 +0100', '2026-12-03T12:27:07.624Z'],
    ['2026-12-03 13:27:07 UTC', '2026-12-03T13:27:07.000Z'],
    // epoch numbers and digit strings
    [1796304427, '2026-12-03T13:27:07.000Z'],
    [1796304427.5, '2026-12-03T13:27:07.500Z'],
    [1796304427624, '2026-12-03T13:27:07.624Z'],
    ['1796304427624', '2026-12-03T13:27:07.624Z'],
    ['1796304427', '2026-12-03T13:27:07.000Z'],
    [1796304427624000, '2026-12-03T13:27:07.624Z'],
    [1796304427624000000, '2026-12-03T13:27:07.624Z'],
    ['Thu, 03 Dec 2026 13:27:07 GMT', '2026-12-03T13:27:07.000Z'],
    ['2026-13-03 13:27:07', null],
    ['yesterday', null],
    ['', null],
    [0, null],
    [null, null],
    [true, null],
  ])('%j -> %s', (value, expected) => {
    const at = timestampOf(value);
    expect(Number.isFinite(at) ? new Date(at).toISOString() : null).toBe(expected);
  });
});

describe('readLine with the common field names', () => {
  it.each<[string, Record<string, unknown>]>([
    [
      '{"ts":"2026-12-03 13:27:07,624","lvl":"E","svc":"billing","msg":"upstream timeout"}',
      {
        timestamp: '2026-12-03T13:27:07.624Z',
        level: 'ERROR',
        service: 'billing',
        message: 'upstream timeout',
        fieldsUsed: { timestamp: 'ts', level: 'lvl', service: 'svc', message: 'msg' },
      },
    ],
    [
      '{"@timestamp":"2026-12-03T13:27:07Z","log":{"level":"warn"},"service":{"name":"api"},"message":"slow"}',
      {
        level: 'WARN',
        service: 'api',
        fieldsUsed: {
          timestamp: '@timestamp',
          level: 'log.level',
          service: 'service.name',
          message: 'message',
        },
      },
    ],
    [
      '{"time":1796304427624,"level":50,"name":"pino-app","msg":"boom"}',
      { level: 'ERROR', service: 'pino-app', message: 'boom' },
    ],
    [
      '{"time":"1796304427624","severity":"ERROR","app":"web","log":"GET /x 500"}',
      { timestamp: '2026-12-03T13:27:07.624Z', service: 'web', message: 'GET /x 500' },
    ],
    [
      '{"timestamp":"2026-12-03T13:27:07Z","levelname":"CRITICAL","logger":"worker","message":"died"}',
      { level: 'ERROR', service: 'worker' },
    ],
    [
      '{"date":"2026-12-03T13:27:07Z","level":"shouty","message":"x"}',
      {
        level: 'INFO',
        unknownLevel: true,
        service: 'unknown',
        fieldsUsed: expect.objectContaining({ service: null }),
      },
    ],
    // an unreadable first candidate falls through to the next one
    [
      '{"time":"n/a","ts":1796304427,"msg":"x"}',
      { timestamp: '2026-12-03T13:27:07.000Z', fieldsUsed: expect.objectContaining({ timestamp: 'ts' }) },
    ],
  ])('%s', (line, expected) => expect(readLine(line, DEFAULT_JSONL_FIELDS)).toMatchObject(expected));

  it.each([
    ['not json', 'NOT_JSON'],
    ['[1,2]', 'NOT_JSON'],
    ['{"msg":"no time"}', 'NO_TIMESTAMP'],
    ['{"ts":"later","msg":"bad time"}', 'NO_TIMESTAMP'],
    ['{"ts":1796304427}', 'NO_MESSAGE'],
  ])('%s is %s', (line, reason) => expect(readLine(line, DEFAULT_JSONL_FIELDS)).toBe(reason));
});

describe('parseLine', () => {
  it('reads configured and dotted field names and epoch timestamps', () => {
    const fields = { timestamp: ['@t'], level: ['log.level'], service: ['svc'], message: ['msg'] };
    expect(parseLine('{"@t":1764672000,"log":{"level":"warning"},"svc":"api","msg":"slow"}', fields)).toEqual(
      {
        at: 1764672000000,
        timestamp: '2025-12-02T10:40:00.000Z',
        level: 'WARN',
        service: 'api',
        message: 'slow',
      },
    );
  });
  it.each([
    ['not json'],
    ['[1,2]'],
    ['{"message":"no time"}'],
    ['{"timestamp":"yesterday","message":"bad time"}'],
    ['{"timestamp":"2026-12-02T10:00:00Z"}'],
  ])('skips %s', (line) => expect(parseLine(line, FIELDS)).toBeNull());
  it('keeps a non-string message as JSON and names a missing service', () => {
    expect(parseLine('{"timestamp":"2026-12-02T10:00:00+08:00","message":{"a":1}}', FIELDS)).toMatchObject({
      timestamp: '2026-12-02T02:00:00.000Z',
      service: 'unknown',
      message: '{"a":1}',
    });
  });
});

describe('outsideWindow', () => {
  const keys = timeKeysOf(DEFAULT_JSONL_FIELDS.timestamp);
  const from = Date.parse('2026-12-02T10:00:00Z');
  const to = Date.parse('2026-12-02T11:00:00Z');
  it.each([
    ['{"ts":"2026-12-02T09:59:59Z","message":"x"}', true],
    ['{"ts": "2026-12-02T11:00:01Z"}', true],
    ['{"ts":"2026-12-02T10:30:00Z"}', false],
    ['{"ts":1764669600}', true], // a year early,
    ['{"ts":1796207400000}', false],
    // unclear lines are left to the full parse
    ['{"meta":{"ts":"2026-12-01T00:00:00Z"},"ts":"2026-12-02T10:30:00Z"}', false],
    ['{"ts":"soon"}', false],
    ['{"other":"2026-12-01T00:00:00Z"}', false],
    ['{"ts":"2026-12-02 09:00:00,123"}', true],
    ['{"ts":"1764669600000"}', true],
    // two candidate keys: the full parse decides which one counts
    ['{"time":"2026-12-02T10:30:00Z","ts":"2026-12-01T00:00:00Z"}', false],
  ])('%s -> %s', (line, skipped) => expect(outsideWindow(line, keys, from, to)).toBe(skipped));
});

describe('JsonlLogSource', () => {
  let dir: string;
  const line = (minute: number, message: string, level = 'ERROR', service = 'order-service') =>
    JSON.stringify({
      timestamp: `2026-12-02T10:${String(minute).padStart(2, '0')}:00.000Z`,
      level,
      service,
      message,
      trace_id: `t-${minute}`,
    });
  const source = (overrides: Partial<JsonlLogSourceConfig> = {}) =>
    new JsonlLogSource({
      directory: dir,
      topics: { APPLICATION: ['app*.jsonl'], DATABASE: ['db.jsonl'] },
      fields: FIELDS,
      maxMatches: 1000,
      ...overrides,
    });
  const window = { startTime: new Date('2026-12-02T10:10:00Z'), endTime: new Date('2026-12-02T10:40:00Z') };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'jsonl-logs-'));
    writeFileSync(
      join(dir, 'app-b.jsonl'),
      [
        line(35, 'HikariPool-1 - Connection is not available, request timed out after 30000ms'),
        'garbage line',
        '2026-12-02 10:30:00 ERROR HikariPool-1 - plain-text line in a JSON-lines file',
        '',
        line(5, 'HikariPool-1 - Connection is not available, request timed out after 30000ms'),
        line(12, 'Order order-1 created', 'info'),
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'app-a.jsonl'),
      `${line(20, 'HikariPool-1 - Connection is not available, request timed out after 30000ms')}\r\n${line(45, 'HikariPool-1 late')}\n`,
    );
    writeFileSync(join(dir, 'db.jsonl'), line(15, 'Lock wait timeout exceeded', 'WARN', 'mysql'));
    writeFileSync(join(dir, 'other.log'), line(15, 'HikariPool-1 never read'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('merges the topic files in time order within the window, as FILE evidence', async () => {
    const raw = await source().search(
      { topic: 'APPLICATION', query: 'HikariPool connection', ...window },
      new AbortController().signal,
    );
    expect(raw).toMatchObject({
      source_kind: 'FILE',
      topic: 'APPLICATION',
      start_time: '2026-12-02T10:10:00.000Z',
      end_time: '2026-12-02T10:40:00.000Z',
    });
    expect(raw.events.map((event) => event.timestamp)).toEqual([
      '2026-12-02T10:20:00.000Z',
      '2026-12-02T10:35:00.000Z',
    ]);
    expect(raw.events[0]).toEqual({
      timestamp: '2026-12-02T10:20:00.000Z',
      level: 'ERROR',
      service: 'order-service',
      message: 'HikariPool-1 - Connection is not available, request timed out after 30000ms',
    });
    const projection = projectLogs(raw, {
      maxPatterns: 5,
      maxEvents: 5,
      maxMessageChars: 200,
      maxTotalChars: 6000,
    });
    expect(projection.evidenceStatus).toBe('EVIDENCE_FOUND');
    expect(projection.result).toMatchObject({ source_kind: 'FILE', match_count: 2, unreadable_lines: 1 });
    expect(String(projection.result.note)).toMatch(/1 line .* could not be read/);
  });

  it('reads an export with other field names, log4j timestamps and one-letter levels unconfigured', async () => {
    writeFileSync(
      join(dir, 'app-c.jsonl'),
      [
        JSON.stringify({
          ts: '2026-12-02 10:25:00,624',
          lvl: 'E',
          svc: 'billing',
          msg: 'HikariPool-1 exhausted',
        }),
        JSON.stringify({
          ts: String(Date.parse('2026-12-02T10:26:00Z')),
          lvl: 'W',
          svc: 'billing',
          msg: 'HikariPool-1 slow',
        }),
      ].join('\n'),
    );
    try {
      const raw = await source().search(
        { topic: 'APPLICATION', query: 'HikariPool billing', ...window },
        new AbortController().signal,
      );
      expect(raw.events.filter((event) => event.service === 'billing')).toEqual([
        {
          timestamp: '2026-12-02T10:25:00.624Z',
          level: 'ERROR',
          service: 'billing',
          message: 'HikariPool-1 exhausted',
        },
        {
          timestamp: '2026-12-02T10:26:00.000Z',
          level: 'WARN',
          service: 'billing',
          message: 'HikariPool-1 slow',
        },
      ]);
    } finally {
      rmSync(join(dir, 'app-c.jsonl'));
    }
  });

  it('reads only the topic of the query and finds nothing outside its terms', async () => {
    const signal = new AbortController().signal;
    const db = await source().search({ topic: 'DATABASE', query: 'lock wait', ...window }, signal);
    expect(db.events.map((event) => event.service)).toEqual(['mysql']);
    const none = await source().search({ topic: 'APPLICATION', query: 'redis eviction', ...window }, signal);
    expect(none.events).toEqual([]);
    expect(none.unreadable_lines).toBe(0);
  });

  it('refuses a topic without files as a Tool ERROR', async () => {
    await expect(
      source().search({ topic: 'ACCESS', query: 'x', ...window }, new AbortController().signal),
    ).rejects.toMatchObject({ code: 'LOG_TOPIC_NOT_CONFIGURED' });
  });

  it('stops with a Tool ERROR instead of collecting more than maxMatches events', async () => {
    const failure = source({ maxMatches: 1 }).search(
      { topic: 'APPLICATION', query: 'HikariPool', ...window },
      new AbortController().signal,
    );
    await expect(failure).rejects.toBeInstanceOf(ToolFailure);
    await expect(failure).rejects.toMatchObject({ code: 'LOG_TOO_MANY_MATCHES' });
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(
      source().search({ topic: 'APPLICATION', query: 'HikariPool', ...window }, controller.signal),
    ).rejects.toThrow('cancelled');
  });
});

describe('logsConfigOf', () => {
  const env = (values: Partial<ToolsEnv>) => Object.assign(new ToolsEnv(), values);

  it('defaults to no log tool and warns about MOCK outside the demo only', () => {
    expect(logsConfigOf(env({}))).toEqual({ backend: 'none', warnMockOutsideDemo: false });
    expect(logsConfigOf(env({ LOG_BACKEND: 'mock' }))).toEqual({
      backend: 'mock',
      warnMockOutsideDemo: true,
    });
    expect(logsConfigOf(env({ LOG_BACKEND: 'mock', DEMO_MODE: true }))).toMatchObject({
      warnMockOutsideDemo: false,
    });
  });

  it('builds the JSONL source config with the replay clock', () => {
    const dir = mkdtempSync(join(tmpdir(), 'jsonl-config-'));
    try {
      expect(
        logsConfigOf(
          env({ LOG_BACKEND: 'jsonl', LOGS_JSONL_DIR: dir, LOGS_JSONL_NOW: '2026-12-02T10:40:00Z' }),
        ),
      ).toEqual({
        backend: 'jsonl',
        jsonl: {
          directory: dir,
          topics: {
            APPLICATION: ['application*.jsonl'],
            ACCESS: ['access*.jsonl'],
            DATABASE: ['database*.jsonl'],
          },
          fields: FIELDS,
          maxMatches: 20_000,
        },
        now: new Date('2026-12-02T10:40:00Z'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the keys of a bad JSONL configuration', () => {
    expect(() =>
      logsConfigOf(env({ LOG_BACKEND: 'jsonl', LOGS_JSONL_DIR: '/no/such/dir', LOGS_JSONL_TOPICS: 'X=a' })),
    ).toThrow(/LOGS_JSONL_DIR must name an existing directory[\s\S]*LOGS_JSONL_TOPICS/);
    expect(() => logsConfigOf(env({ LOG_BACKEND: 'jsonl' }))).toThrow(/LOGS_JSONL_DIR/);
  });
});
