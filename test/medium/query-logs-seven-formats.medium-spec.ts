import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileLogsConfigOf, FileLogsEnv, inspectLogDirectory, queryLogsConfig } from '@app/tools';
import { FileLogSource } from '../../libs/tools/src/logs/file-log-source';
import { queryLogsTool } from '../../libs/tools/src/logs/query-logs.tool';
import { LOG_FIXTURES } from '../support/log-fixtures';

/** A chat run's context as the tool reads it: no alert anchors its window, so it ends now. */
const NOT_ANCHORED = { timeAnchor: null } as Parameters<ReturnType<typeof queryLogsTool>['execute']>[2];

/**
 * An incident spread over seven files in the formats real systems write, under the names those systems
 * give them, in one logs directory: no converter, one rule for the zone-less logback file and one
 * naming the docker container's service. Everything is read with the right time, level and service.
 */
const FILES: [string, string][] = [
  ['logback/payment-service.log', 'payment-service.log'],
  ['combined/access.log', 'nginx/access.log'],
  ['syslog-5424/syslog', 'syslog'],
  ['docker/3f9a1c2b7d4e-json.log', 'containers/3f9a1c2b7d4e/3f9a1c2b7d4e-json.log'],
  ['journald/payment-gateway.journal.json', 'payment-gateway.journal.json'],
  ['ecs/order-service.json', 'order-service.json'],
  ['logfmt/inventory.log', 'inventory.log'],
];

function env(values: Partial<FileLogsEnv>): FileLogsEnv {
  return Object.assign(new FileLogsEnv(), values);
}

describe('query_logs over seven formats in one logs directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'seven-formats-'));
  beforeAll(() => {
    for (const [fixture, name] of FILES) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      copyFileSync(join(LOG_FIXTURES, fixture), join(dir, name));
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const config = () =>
    fileLogsConfigOf(
      env({
        LOGS_JSONL_DIR: dir,
        LOGS_FILE_RULES:
          'payment-service.log: time_zone=Asia/Shanghai; containers/**: service=inventory-service; syslog: topic=DATABASE',
      }),
    );
  const tool = () =>
    queryLogsTool(
      new FileLogSource({ ...config(), maxRawBytes: 960 * 1024 }),
      queryLogsConfig(),
      () => new Date('2026-12-05T02:30:00Z'),
    );
  const search = async (args: Record<string, unknown>) => {
    const definition = tool();
    const parsed = definition.schema.parse({ lookback_minutes: 60, ...args });
    const raw = await definition.execute(parsed, new AbortController().signal, NOT_ANCHORED);
    return { raw, result: definition.project(raw, parsed).result };
  };

  it('lists every file with its detected format, topic and time range, none unreadable', async () => {
    const { reports, problems } = await inspectLogDirectory(config());
    expect(problems).toEqual([]);
    expect(
      reports.map((report) => [
        report.file,
        report.format,
        report.topic,
        report.from,
        report.unreadableLines,
      ]),
    ).toEqual([
      [
        'containers/3f9a1c2b7d4e/3f9a1c2b7d4e-json.log',
        'docker-json',
        'APPLICATION',
        '2026-12-05T02:00:00.000Z',
        0,
      ],
      ['inventory.log', 'logfmt', 'APPLICATION', '2026-12-05T02:15:00.120Z', 0],
      ['nginx/access.log', 'combined', 'ACCESS', '2026-12-05T02:15:00.000Z', 0],
      ['order-service.json', 'ecs-json', 'APPLICATION', '2026-12-05T02:14:58.120Z', 0],
      ['payment-gateway.journal.json', 'journald-json', 'APPLICATION', '2026-12-05T02:15:01.123Z', 0],
      ['payment-service.log', 'logback', 'APPLICATION', '2026-12-05T02:15:01.204Z', 0],
      ['syslog', 'syslog-5424', 'DATABASE', '2026-12-05T02:15:02.003Z', 0],
    ]);
  });

  it("finds the order id in every application format, in UTC, with each record's level and service", async () => {
    const { raw, result } = await search({ topic: 'APPLICATION', query: 'ORD-20261205-004217' });
    expect(raw.events.map((event) => [event.timestamp, event.level, event.service])).toEqual([
      ['2026-12-05T02:14:58.120Z', 'INFO', 'order-service'],
      ['2026-12-05T02:15:00.120Z', 'INFO', 'inventory'],
      ['2026-12-05T02:15:01.204Z', 'INFO', 'payment-service'],
      ['2026-12-05T02:15:03.451Z', 'ERROR', 'order-service'],
      ['2026-12-05T02:15:03.500Z', 'ERROR', 'payment-gateway'],
      ['2026-12-05T02:15:04.002Z', 'WARN', 'order-service'],
      ['2026-12-05T02:15:04.120Z', 'ERROR', 'payment-service'],
    ]);
    expect(result.totals).toEqual({
      by_level: { ERROR: 3, WARN: 1, INFO: 3, DEBUG: 0 },
      by_service: { 'order-service': 3, 'payment-service': 2, inventory: 1, 'payment-gateway': 1 },
    });
    expect(result.completeness).toEqual({ complete: true, unreadable_lines: 0, unreadable_files: 0 });
  });

  it('joins the stack trace to its logback event and reads docker stderr as WARN for its service', async () => {
    const errors = await search({
      topic: 'APPLICATION',
      query: 'SocketTimeoutException',
      service: 'payment-service',
    });
    expect(errors.raw.events).toHaveLength(1);
    expect(errors.raw.events[0].message).toContain('Caused by: java.io.IOException: connection reset');
    const docker = await search({
      topic: 'APPLICATION',
      query: '',
      service: 'inventory-service',
      level: 'WARN',
    });
    expect(docker.raw.events.map((event) => [event.timestamp, event.level])).toEqual([
      ['2026-12-05T02:15:03.878Z', 'WARN'],
      ['2026-12-05T02:15:04.100Z', 'WARN'],
    ]);
  });

  it('matches all terms: the 504 payment request, not the 200s; status and path filters agree', async () => {
    const byTerms = await search({ topic: 'ACCESS', query: '/api/v1/payments 504' });
    const byFilters = await search({ topic: 'ACCESS', status: '5xx', path: '/api/v1/payments' });
    for (const { raw } of [byTerms, byFilters]) {
      expect(raw.events.map((event) => [event.timestamp, event.level, event.service])).toEqual([
        ['2026-12-05T02:15:03.000Z', 'ERROR', 'nginx'],
      ]);
    }
  });

  it('reads RFC 5424 severities and app names; says what range the files cover outside the window', async () => {
    const { raw } = await search({ topic: 'DATABASE', query: 'pool exhausted' });
    expect(raw.events.map((event) => [event.timestamp, event.level, event.service])).toEqual([
      ['2026-12-05T02:15:03.500Z', 'ERROR', 'payment-db-proxy'],
    ]);
    const definition = queryLogsTool(
      new FileLogSource({ ...config(), maxRawBytes: 960 * 1024 }),
      queryLogsConfig(),
      () => new Date('2026-12-06T08:00:00Z'),
    );
    const args = definition.schema.parse({ topic: 'DATABASE', query: 'pool' });
    const later = definition.project(
      await definition.execute(args, new AbortController().signal, NOT_ANCHORED),
      args,
    );
    expect(later.evidenceStatus).toBe('NO_EVIDENCE');
    expect(later.result.note).toContain('which cover 2026-12-05T02:15:02.003Z – 2026-12-05T02:15:04.000Z');
  });
});
