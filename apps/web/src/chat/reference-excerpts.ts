import type { Reference } from '@app/contracts';

/** What a reference shows under its heading: the exact evidence the report was verified against. */
export type ReferenceExcerpt =
  | { kind: 'document'; title: string; breadcrumb: string; text: string }
  | { kind: 'log-pattern'; level: string; service: string; count: number; example: string; lastSeen: string }
  | { kind: 'log-event'; timestamp: string; level: string; service: string; message: string }
  | { kind: 'table'; columns: string[]; rows: string[][]; hiddenRows: number }
  | { kind: 'fields'; fields: [string, string][] }
  | {
      kind: 'series';
      name: string;
      figures: [string, string][];
      trend: number[];
      changes: string[];
    };

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

const figure = (value: unknown) => (typeof value === 'number' ? String(value) : '–');

/** A metric series as query_metrics reports it: a range series' figures, change points and trend, or an instant value. */
function seriesOf(item: Fields): ReferenceExcerpt | null {
  if (!isFields(item.labels)) return null;
  const isRange = Array.isArray(item.trend);
  if (!isRange && !('value' in item)) return null;
  const labels = Object.entries(item.labels);
  const metric = labels.find(([name]) => name === '__name__')?.[1];
  const rest = labels
    .filter(([name]) => name !== '__name__')
    .map(([name, value]) => `${name}=${text(value)}`);
  return {
    kind: 'series',
    name: `${metric ? text(metric) : ''}${rest.length > 0 ? `{${rest.join(', ')}}` : ''}` || 'series',
    figures: isRange
      ? (['min', 'max', 'mean', 'last'] as const).map((key) => [key, figure(item[key])])
      : [
          ['value', figure(item.value)],
          ['at', text(item.at)],
        ],
    trend: list(item.trend).filter(
      (value): value is number => typeof value === 'number' && Number.isFinite(value),
    ),
    changes: list(item.change_points)
      .filter(isFields)
      .map((change) => `${text(change.at)}: ${figure(change.from)} → ${figure(change.to)}`),
  };
}

/** At most `maxItems` excerpts (and `maxRows` table rows) per reference, so a long report stays readable. */
export function excerptsOf(reference: Reference, maxItems = 5, maxRows = 5): ReferenceExcerpt[] {
  const values = reference.values;
  switch (reference.source_type) {
    case 'KNOWLEDGE':
      return list(values)
        .filter(isFields)
        .slice(0, maxItems)
        .map((item) => ({
          kind: 'document',
          title: text(item.title),
          breadcrumb: text(item.breadcrumb),
          text: text(item.excerpt),
        }));
    case 'LOG': {
      if (!isFields(values)) return [];
      const patterns: ReferenceExcerpt[] = list(values.patterns)
        .filter(isFields)
        .map((pattern) => ({
          kind: 'log-pattern',
          level: text(pattern.level),
          service: text(pattern.service),
          count: typeof pattern.count === 'number' ? pattern.count : 0,
          example: text(pattern.example),
          lastSeen: text(pattern.last_seen),
        }));
      const events: ReferenceExcerpt[] = list(values.events)
        .filter(isFields)
        .map((event) => ({
          kind: 'log-event',
          timestamp: text(event.timestamp),
          level: text(event.level),
          service: text(event.service),
          message: text(event.message),
        }));
      return [...patterns, ...events].slice(0, maxItems);
    }
    case 'MYSQL': {
      if (!isFields(values)) return [];
      const columns = list(values.columns).map(text);
      const rows = list(values.rows).filter(isFields);
      if (columns.length === 0) return [];
      return [
        {
          kind: 'table',
          columns,
          rows: rows.slice(0, maxRows).map((row) => columns.map((column) => text(row[column]))),
          hiddenRows: Math.max(0, rows.length - maxRows),
        },
      ];
    }
    case 'METRIC':
      return list(values)
        .filter(isFields)
        .map(seriesOf)
        .filter((excerpt): excerpt is ReferenceExcerpt => excerpt !== null)
        .slice(0, maxItems);
    case 'OTHER':
      return isFields(values)
        ? [
            {
              kind: 'fields',
              fields: Object.entries(values)
                .slice(0, maxItems)
                .map(([k, v]) => [k, text(v)]),
            },
          ]
        : [];
  }
}

/** Demo evidence (the MOCK log source) is sample data, which the report must say plainly. */
export function usesMockData(references: Reference[]): boolean {
  return references.some((reference) => reference.demo);
}
