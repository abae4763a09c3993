import type { Reference } from '@app/contracts';
import { excerptsOf, usesMockData } from './reference-excerpts';

const reference = (
  source_type: Reference['source_type'],
  values: unknown,
  source = 'src',
  demo = false,
): Reference => ({
  reference_id: 1,
  source_type,
  source,
  scope: 'scope',
  evidence_status: 'EVIDENCE_FOUND',
  values,
  truncated: false,
  demo,
});

describe('excerptsOf', () => {
  it.each<[string, Reference, unknown]>([
    [
      'a knowledge excerpt with its title and breadcrumb',
      reference('KNOWLEDGE', [{ document_id: 'd', title: 'Payment', breadcrumb: 'A > B', excerpt: 'pool' }]),
      [{ kind: 'document', title: 'Payment', breadcrumb: 'A > B', text: 'pool' }],
    ],
    [
      'log patterns before sampled events',
      reference('LOG', {
        patterns: [{ count: 84, level: 'ERROR', service: 'order', example: 'Hikari', last_seen: 't2' }],
        events: [{ timestamp: 't1', level: 'WARN', service: 'order', message: 'slow' }],
      }),
      [
        {
          kind: 'log-pattern',
          level: 'ERROR',
          service: 'order',
          count: 84,
          example: 'Hikari',
          lastSeen: 't2',
        },
        { kind: 'log-event', timestamp: 't1', level: 'WARN', service: 'order', message: 'slow' },
      ],
    ],
    [
      'metric series with their figures, trend and largest changes',
      reference('METRIC', [
        {
          labels: { __name__: 'hikaricp_connections_active', service: 'order', instance: '[REDACTED]' },
          samples: 120,
          min: 3,
          max: 10,
          mean: 5.3,
          last: 10,
          change_points: [{ at: 't1', from: 3, to: 10, delta: 7 }],
          trend: [3, 3, 10, 10],
        },
        { not: 'a series' },
      ]),
      [
        {
          kind: 'series',
          name: 'hikaricp_connections_active{service=order, instance=[REDACTED]}',
          figures: [
            ['min', '3'],
            ['max', '10'],
            ['mean', '5.3'],
            ['last', '10'],
          ],
          trend: [3, 3, 10, 10],
          changes: ['t1: 3 → 10'],
        },
      ],
    ],
    [
      'an instant metric value with its time and no trend',
      reference('METRIC', [{ labels: { pool: 'order' }, value: 10, at: 't1' }]),
      [
        {
          kind: 'series',
          name: '{pool=order}',
          figures: [
            ['value', '10'],
            ['at', 't1'],
          ],
          trend: [],
          changes: [],
        },
      ],
    ],
    [
      'series only from METRIC evidence: an array from another tool is not read as metrics',
      reference('OTHER', [{ labels: { pool: 'order' }, min: 3, max: 10, trend: [3, 10] }]),
      [],
    ],
    [
      'MySQL rows as table cells in column order, null as empty',
      reference('MYSQL', {
        columns: ['id', 'status'],
        rows: [{ status: 'PAY_TIMEOUT', id: 7 }, { id: null }],
      }),
      [
        {
          kind: 'table',
          columns: ['id', 'status'],
          rows: [
            ['7', 'PAY_TIMEOUT'],
            ['', ''],
          ],
          hiddenRows: 0,
        },
      ],
    ],
    ['nothing for a MySQL result without columns', reference('MYSQL', { columns: [], rows: [] }), []],
    ['nothing for values of an unexpected shape', reference('LOG', 'oops'), []],
    ['skips non-object knowledge items', reference('KNOWLEDGE', ['x', null]), []],
    [
      'other tools as fields',
      reference('OTHER', { answer: 42, note: 'n' }),
      [
        {
          kind: 'fields',
          fields: [
            ['answer', '42'],
            ['note', 'n'],
          ],
        },
      ],
    ],
  ])('%s', (_name, input, expected) => {
    expect(excerptsOf(input)).toEqual(expected);
  });

  it('keeps at most maxItems excerpts and maxRows rows, counting the hidden rows', () => {
    const events = Array.from({ length: 9 }, (_, i) => ({
      timestamp: `t${i}`,
      level: 'INFO',
      service: 's',
      message: 'm',
    }));
    expect(excerptsOf(reference('LOG', { patterns: [], events }), 3)).toHaveLength(3);
    const rows = Array.from({ length: 8 }, (_, i) => ({ id: i }));
    expect(excerptsOf(reference('MYSQL', { columns: ['id'], rows }), 5, 2)).toEqual([
      { kind: 'table', columns: ['id'], rows: [['0'], ['1']], hiddenRows: 6 },
    ]);
  });
});

describe('usesMockData', () => {
  it.each<[Reference[], boolean]>([
    [[reference('LOG', {}, 'APPLICATION (MOCK)', true)], true],
    [[reference('LOG', {}, 'APPLICATION (FILE)'), reference('LOG', {}, 'DATABASE (MOCK)', true)], true],
    // The display text decides nothing: only the typed field does.
    [[reference('LOG', {}, 'APPLICATION (MOCK)', false)], false],
    [[reference('KNOWLEDGE', [], 'MOCK runbook')], false],
    [[], false],
  ])('%j -> %s', (references, expected) => {
    expect(usesMockData(references)).toBe(expected);
  });
});
