import { LogEvent, LogRawResponse } from './log-source.port';
import { messageTemplate, projectLogs } from './query-logs-result-projector';

const LIMITS = { maxPatterns: 10, maxEvents: 5, maxMessageChars: 120, maxTotalChars: 6000 };

function raw(events: LogEvent[]): LogRawResponse {
  return {
    source_kind: 'MOCK',
    topic: 'APPLICATION',
    query: 'HikariPool',
    start_time: '2026-12-02T10:00:00.000Z',
    end_time: '2026-12-02T10:30:00.000Z',
    events,
  };
}
const event = (
  minute: number,
  message: string,
  level: LogEvent['level'] = 'ERROR',
  service = 'order-service',
): LogEvent => ({
  timestamp: `2026-12-02T10:${String(minute).padStart(2, '0')}:00.000Z`,
  level,
  service,
  message,
});

describe('messageTemplate', () => {
  it.each([
    [
      'HikariPool-1 - Connection is not available, request timed out after 30000ms. (requestId=abc00f)',
      'HikariPool-<n> - Connection is not available, request timed out after <n>ms. (requestId=<hex>)',
    ],
    [
      'Payment request for order order-123 timed out after 30000 ms',
      'Payment request for order order-<n> timed out after <n> ms',
    ],
    ['at 2026-12-02T10:00:00.123Z id 123e4567-e89b-12d3-a456-426614174000', 'at <ts> id <uuid>'],
    // Hex ids are whole words of 6+ characters with a letter a-f and a digit; shorter or letterless stay numbers.
    [
      'trace 0xABCDEF1 span deadbe1 ref ab12c 0x1234567 x9abcdef',
      'trace <hex> span <hex> ref ab<n>c <n>x<n> x<n>abcdef',
    ],
    ['at 2026-12-02 10:00:00+08:00 from 12345-01-02', 'at <ts> from <n>-<n>-<n>'],
    ['no digits here: pool-exhausted', 'no digits here: pool-exhausted'],
  ])('%s', (message, template) => expect(messageTemplate(message)).toBe(template));
});

describe('projectLogs', () => {
  it('aggregates by template with counts and first/last seen, and keeps the full scope', () => {
    const projection = projectLogs(
      raw([event(1, 'timeout after 100ms'), event(5, 'timeout after 250ms'), event(9, 'pool ok', 'INFO')]),
      LIMITS,
    );
    expect(projection.evidenceStatus).toBe('EVIDENCE_FOUND');
    expect(projection.result).toMatchObject({
      source_kind: 'MOCK',
      scope: {
        topic: 'APPLICATION',
        query: 'HikariPool',
        start_time: '2026-12-02T10:00:00.000Z',
        end_time: '2026-12-02T10:30:00.000Z',
      },
      match_count: 3,
      patterns: [
        {
          count: 2,
          first_seen: '2026-12-02T10:01:00.000Z',
          last_seen: '2026-12-02T10:05:00.000Z',
          level: 'ERROR',
          service: 'order-service',
          example: 'timeout after 100ms',
        },
        { count: 1, level: 'INFO', example: 'pool ok' },
      ],
    });
    expect(projection.result.returned_count).toBe((projection.result.events as unknown[]).length);
  });

  it('keeps the scope and zero-match info for NO_EVIDENCE', () => {
    const projection = projectLogs(raw([]), LIMITS);
    expect(projection).toEqual({
      evidenceStatus: 'NO_EVIDENCE',
      result: {
        source_kind: 'MOCK',
        scope: {
          topic: 'APPLICATION',
          query: 'HikariPool',
          start_time: '2026-12-02T10:00:00.000Z',
          end_time: '2026-12-02T10:30:00.000Z',
        },
        match_count: 0,
        totals: { by_level: { ERROR: 0, WARN: 0, INFO: 0, DEBUG: 0 }, by_service: {} },
        returned_count: 0,
        patterns: [],
        events: [],
      },
      truncated: false,
    });
  });

  it.each<[string, Partial<typeof LIMITS>, (result: Record<string, unknown>) => void]>([
    ['patterns', { maxPatterns: 2 }, (r) => expect(r.patterns).toHaveLength(2)],
    ['events', { maxEvents: 3 }, (r) => expect(r.events).toHaveLength(3)],
    [
      'message length',
      { maxMessageChars: 10 },
      (r) => expect((r.events as { message: string }[]).every((e) => e.message.length <= 10)).toBe(true),
    ],
    [
      'total characters',
      { maxTotalChars: 400 },
      (r) =>
        expect(JSON.stringify(r.patterns).length + JSON.stringify(r.events).length).toBeLessThanOrEqual(400),
    ],
  ])('truncates at the %s limit and says so', (_name, limits, check) => {
    const events = Array.from({ length: 20 }, (_, i) =>
      event(i, `distinct failure kind ${String.fromCharCode(97 + i)} in module`, i % 2 ? 'WARN' : 'ERROR'),
    );
    const projection = projectLogs(raw(events), { ...LIMITS, ...limits });
    check(projection.result);
    expect(projection.truncated).toBe(true);
    expect(projection.result.match_count).toBe(20);
  });

  it('samples events in time order, favouring errors and warnings', () => {
    const events = [
      event(1, 'a', 'INFO'),
      event(2, 'b'),
      event(3, 'c', 'INFO'),
      event(4, 'd', 'WARN'),
      event(5, 'e'),
      event(6, 'f', 'INFO'),
    ];
    const projection = projectLogs(raw(events), { ...LIMITS, maxEvents: 4 });
    expect((projection.result.events as LogEvent[]).map((e) => e.message)).toEqual(['b', 'd', 'e', 'f']);
  });

  it.each<[string, LogEvent[], number, string[]]>([
    [
      'errors and warnings alone would fill the sample',
      [event(1, 'a', 'INFO'), event(2, 'b'), event(3, 'c', 'WARN'), event(4, 'd'), event(5, 'e', 'DEBUG')],
      3,
      ['b', 'd', 'e'],
    ],
    [
      'errors far outnumber the sample',
      [
        ...Array.from({ length: 12 }, (_, i) => event(i + 1, `err ${i}`)),
        event(20, 'deploy finished', 'INFO'),
      ],
      8,
      ['err 0', 'err 2', 'err 4', 'err 6', 'err 7', 'err 9', 'err 11', 'deploy finished'],
    ],
  ])('keeps INFO events in the time-ordered sample when %s', (_name, events, maxEvents, expected) => {
    const projection = projectLogs(raw(events), { ...LIMITS, maxEvents });
    expect((projection.result.events as LogEvent[]).map((e) => e.message)).toEqual(expected);
  });

  it('keeps an INFO pattern when error patterns alone would fill the pattern list', () => {
    const events = [
      ...Array.from({ length: 6 }, (_, i) => event(i, `failure kind ${String.fromCharCode(97 + i)}`)),
      event(10, 'deploy finished', 'INFO'),
    ];
    const projection = projectLogs(raw(events), { ...LIMITS, maxPatterns: 4 });
    const patterns = projection.result.patterns as { level: string; example: string }[];
    expect(patterns).toHaveLength(4);
    expect(patterns.at(-1)).toMatchObject({ level: 'INFO', example: 'deploy finished' });
  });

  it.each([
    ['Authorization: Bearer abc.def', 'Authorization: [REDACTED]'],
    ['db.password=hunter2 pool.max=50', 'db.password=[REDACTED] pool.max=50'],
    ['api_key=sk-123 ok', 'api_key=[REDACTED] ok'],
  ])('redacts %s in patterns and events', (message, redacted) => {
    const projection = projectLogs(raw([event(1, message)]), LIMITS);
    expect(projection.result.patterns).toEqual([expect.objectContaining({ example: redacted })]);
    expect(projection.result.events).toEqual([expect.objectContaining({ message: redacted })]);
  });
});
