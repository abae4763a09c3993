import { isSensitiveField } from '../projection/redaction';
import type { MysqlDataSourceConfig } from './mysql-tools-config';

export interface AllowlistDescriptionLimits {
  /** Tables listed per data source before "…N more tables". */
  maxTables: number;
  /** Columns listed per table before "…N more". */
  maxColumns: number;
}

export const DEFAULT_DESCRIPTION_LIMITS: AllowlistDescriptionLimits = { maxTables: 20, maxColumns: 30 };

/** Code-unit order, so the text never depends on the machine's locale. */
const sorted = (values: Iterable<string>) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

function capped(items: string[], max: number, noun: string): string[] {
  if (items.length <= max) return items;
  return [...items.slice(0, max), `…${items.length - max} more${noun}`];
}

/**
 * What query_mysql may read, for the model: per data source (sorted by id) its tables as
 * `schema.table(columns)` sorted by name, hidden columns marked, bounded so a large allowlist cannot
 * flood the prompt.
 * Tables of the default schema may be named without the schema.
 */
export function describeAllowlist(
  sources: readonly MysqlDataSourceConfig[],
  limits: AllowlistDescriptionLimits = DEFAULT_DESCRIPTION_LIMITS,
): string {
  if (sources.length === 0) return 'Data sources: (none configured).';
  const byId = new Map(sources.map((source) => [source.id, source]));
  const lines = sorted(byId.keys()).map((id) => {
    const source = byId.get(id)!;
    const tables = sorted(source.schemas.keys()).flatMap((schema) => {
      const tablesOfSchema = source.schemas.get(schema)!;
      return sorted(tablesOfSchema.keys()).map((table) => {
        const { columns: allowed, hidden } = tablesOfSchema.get(table)!;
        const columns = capped(
          sorted(allowed).map((column) => (hidden.has(column) ? `${column} [hidden]` : column)),
          limits.maxColumns,
          '',
        );
        return `${schema}.${table}(${columns.join(', ')})`;
      });
    });
    const listed = capped(tables, limits.maxTables, ' tables');
    return `- ${id} (default schema ${source.defaultSchema}): ${listed.join('; ')}`;
  });
  const anyHidden = sources.some((source) =>
    [...source.schemas.values()].some((tables) =>
      [...tables.values()].some((table) => table.hidden.size > 0),
    ),
  );
  return [
    'Data sources and the only tables and columns you may query:',
    ...lines,
    ...(anyHidden
      ? [
          'Columns marked [hidden] may be filtered on, but any result column that reads them comes back as [REDACTED].',
        ]
      : []),
  ].join('\n');
}

/**
 * For doctor: the columns of one data source whose values the agent never sees, and why (the name rule
 * or `hidden-columns`), and the ones `shown-columns` lets through although their name is sensitive.
 */
export function describeColumnRules(source: MysqlDataSourceConfig): {
  byName: string[];
  listed: string[];
  shown: string[];
} {
  const rules = { byName: [] as string[], listed: [] as string[], shown: [] as string[] };
  for (const schema of sorted(source.schemas.keys()))
    for (const [table, { columns, hidden }] of [...source.schemas.get(schema)!].sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    ))
      for (const column of sorted(columns)) {
        const name = `${schema}.${table}.${column}`;
        if (hidden.has(column)) (isSensitiveField(column) ? rules.byName : rules.listed).push(name);
        else if (isSensitiveField(column)) rules.shown.push(name);
      }
  return rules;
}
