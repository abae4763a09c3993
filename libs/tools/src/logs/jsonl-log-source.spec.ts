import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolFailure } from '@app/harness';
import { logsConfigOf, ToolsEnv } from '../config/tools.config';
import {
  globToRegExp,
  JsonlLogSource,
  JsonlLogSourceConfig,
  normalizeLevel,
  outsideWindow,
  parseLine,
  parseTopicGlobs,
} from './jsonl-log-source';
import { projectLogs } from './query-logs-result-projector';

const FIELDS = { timestamp: 'timestamp', level: 'level', service: 'service', message: 'message' };

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
    ['something', 'INFO'],
    [undefined, 'INFO'],
  ])('%j -> %s', (value, level) => expect(normalizeLevel(value)).toBe(level));
});

describe('parseLine', () => {
  it('reads configured and dotted field names and epoch timestamps', () => {
    const fields = { timestamp: '@t', level: 'log.level', service: 'svc', message: 'msg' };
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
  const key = '"ts"';
  const pattern = /"ts"\s*:\s*(?:"([^"\\]*)"|(\d+(?:\.\d+)?))/;
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
  ])('%s -> %s', (line, skipped) => expect(outsideWindow(line, key, pattern, from, to)).toBe(skipped));
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
    expect(projection.result).toMatchObject({ source_kind: 'FILE', match_count: 2 });
  });

  it('reads only the topic of the query and finds nothing outside its terms', async () => {
    const signal = new AbortController().signal;
    const db = await source().search({ topic: 'DATABASE', query: 'lock wait', ...window }, signal);
    expect(db.events.map((event) => event.service)).toEqual(['mysql']);
    const none = await source().search({ topic: 'APPLICATION', query: 'redis eviction', ...window }, signal);
    expect(none.events).toEqual([]);
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
