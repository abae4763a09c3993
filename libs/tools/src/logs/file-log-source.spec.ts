import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_FIXTURES } from '@test/support/log-fixtures';
import { FileLogSource } from './file-log-source';
import { parseFileRules, parseTopicGlobs, serviceFromPath, topicFromPath } from './log-files';
import { projectLogs } from './query-logs-result-projector';

const limits = { maxPatterns: 10, maxEvents: 10, maxMessageChars: 300, maxTotalChars: 6000 };
const signal = new AbortController().signal;
const at = (iso: string) => new Date(iso);

describe('FileLogSource', () => {
  let dir: string;
  let outside: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'file-log-source-'));
    outside = mkdtempSync(join(tmpdir(), 'file-log-outside-'));
    copyFileSync(join(LOG_FIXTURES, 'logback/payment-service.log'), join(dir, 'payment-service.log'));
    mkdirSync(join(dir, 'nginx'));
    copyFileSync(join(LOG_FIXTURES, 'combined/access.log'), join(dir, 'nginx', 'access.log'));
    symlinkSync(join(dir, 'nginx', 'access.log'), join(dir, 'access-link.log'));
    mkdirSync(join(dir, 'rotated'));
    copyFileSync(join(LOG_FIXTURES, 'combined/access.log'), join(dir, 'rotated', 'edge-2026-12-05.log'));
    symlinkSync(join(dir, 'rotated', 'edge-2026-12-05.log'), join(dir, 'rotated', 'edge-current'));
    symlinkSync(join(dir, 'rotated', 'edge-2026-12-05.log'), join(dir, 'edge-latest.log'));
    writeFileSync(join(outside, 'secret.log'), 'x');
    symlinkSync(join(outside, 'secret.log'), join(dir, 'escape.log'));
    writeFileSync(join(dir, 'locked.log'), '2026-12-05 10:15:03.211 [t] ERROR c.X - secret\n');
    chmodSync(join(dir, 'locked.log'), 0o000);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  const source = (timeZone = 'Asia/Shanghai') =>
    new FileLogSource({
      directory: dir,
      rules: parseFileRules('locked.log: topic=APPLICATION'),
      timeZone,
      maxMatches: 100,
      maxRawBytes: 960 * 1024,
      maxLineBytes: 64 * 1024,
    });
  const window = { startTime: at('2026-12-05T02:00:00Z'), endTime: at('2026-12-05T02:30:00Z') };

  it('searches every file of the topic with its format and zone; an unreadable file fails only itself', async () => {
    const raw = await source().search({ topic: 'APPLICATION', query: 'timed out', ...window }, signal);
    expect(raw.events.map((event) => [event.timestamp, event.level, event.service])).toEqual([
      ['2026-12-05T02:15:03.211Z', 'ERROR', 'payment-service'],
    ]);
    const root = process.getuid?.() === 0;
    expect(raw.unreadable_files).toEqual([
      { file: 'escape.log', reason: 'symbolic link leads outside the logs directory; not read' },
      ...(root ? [] : [{ file: 'locked.log', reason: 'permission denied (EACCES)' }]),
    ]);
    const projected = projectLogs(raw, limits).result;
    expect(projected.completeness).toEqual({
      complete: false,
      unreadable_lines: 0,
      unreadable_files: root ? 1 : 2,
    });
  });

  it('follows symlinks inside the directory, reading a linked file once; filters and totals by level and service', async () => {
    const raw = await source().search(
      { topic: 'ACCESS', query: '', ...window, filters: { status: '5xx' } },
      signal,
    );
    expect(raw.files?.map((file) => [file.file, file.format])).toEqual([
      ['nginx/access.log', 'combined'],
      ['rotated/edge-2026-12-05.log', 'combined'],
    ]);
    expect(raw.events.map((event) => [event.service, event.level])).toEqual([
      ['nginx', 'ERROR'],
      ['edge', 'ERROR'],
    ]);
    expect(projectLogs(raw, { ...limits, maxEvents: 1 }).result.totals).toEqual({
      by_level: { ERROR: 2, WARN: 0, INFO: 0, DEBUG: 0 },
      by_service: { edge: 1, nginx: 1 },
    });
  });

  it('says which range the files cover when the window misses them', async () => {
    const raw = await source().search(
      {
        topic: 'ACCESS',
        query: '504',
        startTime: at('2026-12-06T00:00:00Z'),
        endTime: at('2026-12-06T01:00:00Z'),
      },
      signal,
    );
    expect(projectLogs(raw, limits).result.note).toContain(
      'does not overlap the ACCESS files, which cover 2026-12-05T02:15:00.000Z – 2026-12-05T02:15:05.000Z',
    );
  });
});

describe('file rules', () => {
  it.each([
    [
      'payment-*.log: format=logback service=payment time_zone=Asia/Shanghai',
      [{ glob: 'payment-*.log', format: 'logback', service: 'payment', timeZone: 'Asia/Shanghai' }],
    ],
    [
      'app.jsonl: timestamp_field=ts; **/*.log: topic=DATABASE',
      [
        { glob: 'app.jsonl', fields: { timestamp: ['ts'] } },
        { glob: '**/*.log', topic: 'DATABASE' },
      ],
    ],
  ])('%s', (text, rules) => expect(parseFileRules(text)).toEqual(rules));

  it.each([
    ['x.log', /must be "glob: key=value/],
    ['x.log: colour=red', /unknown key colour/],
    ['x.log: format=xml', /format must be one of/],
    ['x.log: time_zone=Mars/Base', /time_zone Mars\/Base/],
    ['x.log: format=logback timestamp_field=ts', /apply to format json only/],
    ['/etc/*.log: topic=ACCESS', /relative to the logs directory/],
  ])('refuses %s', (text, message) => expect(() => parseFileRules(text)).toThrow(message));

  it('reads LOGS_JSONL_TOPICS as topic rules', () =>
    expect(parseTopicGlobs('APPLICATION=app*.log|svc/*.json,ACCESS=access.log')).toEqual([
      { glob: 'app*.log', topic: 'APPLICATION' },
      { glob: 'svc/*.json', topic: 'APPLICATION' },
      { glob: 'access.log', topic: 'ACCESS' },
    ]));

  it.each([
    ['payment-service.log', 'payment-service', 'APPLICATION'],
    ['payment-service.log.1', 'payment-service', 'APPLICATION'],
    ['nginx/access.log', 'nginx', 'ACCESS'],
    ['syslog', null, 'APPLICATION'],
    ['containers/3f9a1c2b7d4e5f60/3f9a1c2b7d4e5f60-json.log', null, 'APPLICATION'],
    ['mysql/slow.log', 'mysql', 'DATABASE'],
    ['order-service-2026-12-05.jsonl', 'order-service', 'APPLICATION'],
  ])('%s: service %s, topic %s', (path, service, topic) => {
    expect(serviceFromPath(path)).toBe(service);
    expect(topicFromPath(path)).toBe(topic);
  });
});
