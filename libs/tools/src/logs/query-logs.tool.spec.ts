import { LogSourcePort } from './log-source.port';
import { queryLogsSchema, queryLogsTool } from './query-logs.tool';
import type { QueryLogsConfig } from './query-logs.config';

describe('queryLogsTool description', () => {
  it.each([
    [30, 1440],
    [5, 60],
  ])('names the topics and the configured lookback (default %i, max %i)', (defaultMinutes, maxMinutes) => {
    const limits = {
      defaultLookbackMinutes: defaultMinutes,
      maxLookbackMinutes: maxMinutes,
    } as QueryLogsConfig;
    const { description } = queryLogsTool({} as LogSourcePort, limits);
    expect(description).toContain('Topics: APPLICATION, ACCESS, DATABASE.');
    expect(description).toContain(`lookback_minutes: default ${defaultMinutes}, at most ${maxMinutes}.`);
  });
});

describe('queryLogsTool description from the configured log source', () => {
  const limits = { defaultLookbackMinutes: 30, maxLookbackMinutes: 60 } as QueryLogsConfig;

  it('names only the topics the source serves', () => {
    const { description } = queryLogsTool({} as LogSourcePort, limits, undefined, [
      'APPLICATION',
      'DATABASE',
    ]);
    expect(description).toContain('Topics: APPLICATION, DATABASE.');
  });

  it('mentions no business of the demo (orders, payments)', () => {
    const tool = queryLogsTool({} as LogSourcePort, limits);
    const queryHelp = (tool.schema as ReturnType<typeof queryLogsSchema>).shape.query.description;
    for (const text of [tool.description, queryHelp])
      expect(text).not.toMatch(/\borders?\b|payment|订单|支付/i);
  });
});

describe('queryLogsTool self-description', () => {
  const tool = queryLogsTool(
    {} as LogSourcePort,
    {
      defaultLookbackMinutes: 30,
      maxLookbackMinutes: 60,
    } as QueryLogsConfig,
  );

  it.each<[string, unknown, string | undefined]>([
    ['a topic of the closed set', { topic: 'APPLICATION', query: 'call 13812345678' }, 'APPLICATION'],
    ['a topic outside the set', { topic: 'ROOT CAUSE CONFIRMED' }, undefined],
    ['arguments that are not an object', 'APPLICATION', undefined],
  ])('names %s in status texts only when it is closed-set', (_name, args, detail) => {
    expect(tool.statusDetail?.(args)).toBe(detail);
  });

  it('reads a verified result as a LOG reference with its scope and exact patterns', () => {
    expect(
      tool.evidenceOf({
        evidence_status: 'EVIDENCE_FOUND',
        tool_call_id: 'call_1',
        truncated: false,
        source_kind: 'MOCK',
        scope: { topic: 'APPLICATION', query: 'HikariPool', start_time: 't0', end_time: 't1' },
        match_count: 84,
        patterns: [{ count: 84 }],
        events: [],
      }),
    ).toEqual({
      source_type: 'LOG',
      source: 'APPLICATION (MOCK)',
      scope: 'query: HikariPool; t0 – t1; 84 matching events',
      values: { patterns: [{ count: 84 }], events: [] },
      demo: true,
    });
  });

  it.each([
    ['FILE', false],
    ['MOCK', true],
    // A kind not known to be real data is stated as demo data (fail closed).
    [undefined, true],
  ])('marks source_kind %s as demo: %s, as a typed field', (sourceKind, demo) => {
    const evidence = tool.evidenceOf({
      evidence_status: 'EVIDENCE_FOUND',
      tool_call_id: 'call_1',
      truncated: false,
      source_kind: sourceKind,
      scope: { topic: 'APPLICATION' },
    });
    expect(evidence.demo).toBe(demo);
  });
});

describe('queryLogsTool time window', () => {
  const now = new Date('2026-12-05T12:00:00Z');
  const run = (timeAnchor: Date | null) => {
    const seen: { startTime: Date; endTime: Date }[] = [];
    const source = {
      search: (query: { startTime: Date; endTime: Date }) => {
        seen.push(query);
        return Promise.resolve({});
      },
    } as unknown as LogSourcePort;
    const tool = queryLogsTool(
      source,
      { defaultLookbackMinutes: 30, maxLookbackMinutes: 60 } as QueryLogsConfig,
      () => now,
    );
    return tool
      .execute(
        { topic: 'APPLICATION', query: 'HikariPool', lookback_minutes: 30 },
        new AbortController().signal,
        { timeAnchor } as Parameters<typeof tool.execute>[2],
      )
      .then(() => seen[0]);
  };

  it.each([
    ['ends now without an anchor', null, '2026-12-05T11:30:00.000Z', '2026-12-05T12:00:00.000Z'],
    [
      'ends at an alert-started run’s anchor',
      new Date('2026-12-05T10:15:00Z'),
      '2026-12-05T09:45:00.000Z',
      '2026-12-05T10:15:00.000Z',
    ],
  ])('%s', async (_name, anchor, start, end) => {
    const query = await run(anchor);
    expect([query.startTime.toISOString(), query.endTime.toISOString()]).toEqual([start, end]);
  });
});
