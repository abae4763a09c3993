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
 * `schema.table(columns)` sorted by name, bounded so a large allowlist cannot flood the prompt.
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
        const columns = capped(sorted(tablesOfSchema.get(table)!.columns), limits.maxColumns, '');
        return `${schema}.${table}(${columns.join(', ')})`;
      });
    });
    const listed = capped(tables, limits.maxTables, ' tables');
    return `- ${id} (default schema ${source.defaultSchema}): ${listed.join('; ')}`;
  });
  return ['Data sources and the only tables and columns you may query:', ...lines].join('\n');
}
