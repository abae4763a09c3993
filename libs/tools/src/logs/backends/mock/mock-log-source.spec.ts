import { matchesLogQuery, parseLogQuery } from '../../log-match';
import { projectLogs } from '../../query-logs-result-projector';
import { generateMockLogs, MockLogSource } from './mock-log-source';

const LIMITS = { maxPatterns: 10, maxEvents: 5, maxMessageChars: 120, maxTotalChars: 6000 };

describe('MockLogSource', () => {
  it('finds the HikariCP exhaustion of the last 30 minutes and nothing older for that pattern', async () => {
    const end = new Date('2026-12-02T12:00:00.000Z');
    const result = await new MockLogSource().search({
      topic: 'APPLICATION',
      query: 'HikariPool connection',
      startTime: new Date(end.getTime() - 30 * 60_000),
      endTime: end,
    });
    expect(result.source_kind).toBe('MOCK');
    expect(result.events.filter((e) => e.message.includes('Connection is not available'))).toHaveLength(84);
    expect(
      result.events.every((e) => e.timestamp >= result.start_time && e.timestamp <= result.end_time),
    ).toBe(true);
  });

  it('is deterministic for a given clock and spans several services and levels', () => {
    const now = new Date('2026-12-02T12:00:00.000Z');
    const logs = generateMockLogs(now);
    expect(generateMockLogs(now)).toEqual(logs);
    expect(new Set(logs.APPLICATION.map((e) => e.service)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(logs.APPLICATION.map((e) => e.level))).toEqual(
      new Set(['ERROR', 'WARN', 'INFO', 'DEBUG']),
    );
  });

  it.each([
    ['APPLICATION', 'HikariPool connection', 30],
    ['APPLICATION', 'payment-service', 24 * 60],
    ['ACCESS', '504 order-service', 90],
    ['DATABASE', '', 10],
    ['APPLICATION', 'nothing-matches-this', 60],
  ] as const)(
    '%s "%s" over %i min equals a plain scan of the generated dataset',
    async (topic, query, minutes) => {
      const end = new Date('2026-12-02T12:00:00.123Z');
      const start = new Date(end.getTime() - minutes * 60_000);
      const terms = parseLogQuery(query);
      const expected = generateMockLogs(end)[topic].filter(
        (event) =>
          event.timestamp >= start.toISOString() &&
          event.timestamp <= end.toISOString() &&
          matchesLogQuery(event, terms, {}),
      );
      const result = await new MockLogSource().search({ topic, query, startTime: start, endTime: end });
      expect(result.events).toEqual(expected);
    },
  );

  it.each([
    [{ status: '504' }, /^POST \/api\/orders\/\d+\/pay 504 /],
    [{ status: '2xx', path: '/api/orders/' }, /^POST \/api\/orders\/\d+\/pay 200 /],
  ])('filters MOCK access lines by %j as the FILE source does', async (filters, line) => {
    const end = new Date('2026-12-02T12:00:00.000Z');
    const result = await new MockLogSource().search({
      topic: 'ACCESS',
      query: '',
      startTime: new Date(end.getTime() - 30 * 60_000),
      endTime: end,
      filters,
    });
    expect(result.events.length).toBeGreaterThan(0);
    for (const event of result.events) expect(event.message).toMatch(line);
  });

  it('projects the incident more than 5x smaller than the raw response, keeping the exhaustion pattern', async () => {
    const end = new Date('2026-12-02T12:00:00.000Z');
    const result = await new MockLogSource().search({
      topic: 'APPLICATION',
      query: 'order-service HikariPool',
      startTime: new Date(end.getTime() - 60 * 60_000),
      endTime: end,
    });
    const projection = projectLogs(result, LIMITS);
    expect(JSON.stringify(result).length / JSON.stringify(projection.result).length).toBeGreaterThan(5);
    expect(projection.result.patterns).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ count: 84, service: 'order-service', level: 'ERROR' }),
      ]),
    );
  });
});
