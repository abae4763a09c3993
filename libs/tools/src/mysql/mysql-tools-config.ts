import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseToolConfigFile, resolveEnvReference } from '../config/tool-config-file';
import { ConfigValidationError } from '@app/config';
import { DEFAULT_ALLOWED_FUNCTIONS, FUNCTION_CATALOG } from './function-catalog';
import { isSensitiveField } from '../projection/redaction';

/** Exact, case-sensitive identifiers: no wildcards, patterns or prefixes. */
const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_$]{0,63}$/, 'must be a plain SQL identifier');
const envReference = z
  .string()
  .regex(/^\$\{[A-Z_][A-Z0-9_]*\}$/, 'must be an environment reference like ${NAME}, never a literal value');

const tableSchema = z.strictObject({
  columns: z.array(identifier).min(1),
  /** Allowlisted columns whose values are hidden from the agent although their name is not sensitive. */
  'hidden-columns': z.array(identifier).optional(),
  /** Columns the name rule would hide (`auth_code`) whose values the agent may see after all. */
  'shown-columns': z.array(identifier).optional(),
});
const schemaSchema = z.strictObject({ tables: z.record(identifier, tableSchema) });
const dataSourceSchema = z
  .strictObject({
    url: z.string().min(1),
    username: envReference,
    password: envReference,
    'default-schema': identifier,
    'allowed-schemas': z.record(identifier, schemaSchema),
    'allowed-functions': z.array(identifier).optional(),
  })
  .refine((source) => source['default-schema'] in source['allowed-schemas'], {
    message: 'default-schema must be one of allowed-schemas',
    path: ['default-schema'],
  });
const fileSchema = z.strictObject({
  harness: z.strictObject({
    'mysql-tools': z.strictObject({ 'data-sources': z.record(identifier, dataSourceSchema) }),
  }),
});

export interface AllowedTable {
  columns: ReadonlySet<string>;
  /** The allowlisted columns whose values query results hide (see hiddenColumnsOf). */
  hidden: ReadonlySet<string>;
}
export interface MysqlDataSourceConfig {
  id: string;
  host: string;
  port: number;
  database: string;
  username: string;
  password: string;
  defaultSchema: string;
  /** schema -> table -> allowed columns */
  schemas: ReadonlyMap<string, ReadonlyMap<string, AllowedTable>>;
  /** Upper-case function names the SQL policy accepts for this source. */
  functions: ReadonlySet<string>;
}

export { DEFAULT_ALLOWED_FUNCTIONS } from './function-catalog';

/**
 * The columns of one allowlisted table whose values query results hide: those the name rule calls
 * sensitive (`phone`, `auth_token`; whole words, see redaction.ts) unless listed in `shown-columns`, plus
 * those listed in `hidden-columns`. A listed name that is not an allowlisted column, is in both lists, or
 * is shown without being hidden by the name rule stops start-up: a rule that does nothing is a typo.
 */
export function hiddenColumnsOf(
  columns: readonly string[],
  rules: { hidden?: readonly string[]; shown?: readonly string[] },
  path: string,
): Set<string> {
  const problems: string[] = [];
  const allowed = new Set(columns);
  const hidden = new Set(rules.hidden ?? []);
  const shown = new Set(rules.shown ?? []);
  for (const [list, names] of [
    ['hidden-columns', hidden],
    ['shown-columns', shown],
  ] as const)
    for (const name of names)
      if (!allowed.has(name)) problems.push(`${path}.${list}: ${name} is not one of this table's columns`);
  for (const name of shown) {
    if (hidden.has(name)) problems.push(`${path}: ${name} is in both hidden-columns and shown-columns`);
    else if (allowed.has(name) && !isSensitiveField(name))
      problems.push(
        `${path}.shown-columns: ${name} is not hidden by the name rule, so listing it changes nothing`,
      );
  }
  if (problems.length > 0) throw new ConfigValidationError(problems);
  return new Set(columns.filter((name) => hidden.has(name) || (isSensitiveField(name) && !shown.has(name))));
}

function parseUrl(raw: string, path: string): { host: string; port: number; database: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigValidationError([`${path}: must be a URL like mysql://host:3306`]);
  }
  if (url.protocol !== 'mysql:' || url.username || url.password) {
    throw new ConfigValidationError([`${path}: must be mysql://host[:port][/database] without credentials`]);
  }
  return { host: url.hostname, port: Number(url.port || 3306), database: url.pathname.replace(/^\//, '') };
}

export interface ParseOptions {
  /** false for tools that only check SQL (sql-check): credentials are then left empty and need not be set. */
  resolveSecrets?: boolean;
}

/** Parses the allowlist file; `${ENV}` references are resolved from `env`. */
export function parseMysqlToolsConfig(
  text: string,
  origin: string,
  env: Record<string, string | undefined> = process.env,
  { resolveSecrets = true }: ParseOptions = {},
): MysqlDataSourceConfig[] {
  const file = parseToolConfigFile(text, origin, fileSchema);
  return Object.entries(file.harness['mysql-tools']['data-sources']).map(([id, source]) => {
    const path = `${origin}: harness.mysql-tools.data-sources.${id}`;
    const isReference = /^\$\{[A-Z_][A-Z0-9_]*\}$/.test(source.url);
    const rawUrl = !isReference
      ? source.url
      : resolveSecrets
        ? resolveEnvReference(source.url, `${path}.url`, env, { allowEmpty: true })
        : 'mysql://unresolved';
    const functions = (source['allowed-functions'] ?? DEFAULT_ALLOWED_FUNCTIONS).map((name) =>
      name.toUpperCase(),
    );
    const unknown = functions.filter((name) => !FUNCTION_CATALOG.has(name));
    if (unknown.length > 0)
      throw new ConfigValidationError([
        `${path}.allowed-functions: ${unknown.join(', ')} ha${unknown.length > 1 ? 've' : 's'} no cost model in the SQL policy; ` +
          'only the functions listed in docs/query-mysql-functions.md can be allowlisted',
      ]);
    const schemas = new Map(
      Object.entries(source['allowed-schemas']).map(([schema, { tables }]) => [
        schema,
        new Map(
          Object.entries(tables).map(([table, rules]) => [
            table,
            {
              columns: new Set(rules.columns),
              hidden: hiddenColumnsOf(
                rules.columns,
                { hidden: rules['hidden-columns'], shown: rules['shown-columns'] },
                `${path}.allowed-schemas.${schema}.tables.${table}`,
              ),
            },
          ]),
        ),
      ]),
    );
    return {
      id,
      ...parseUrl(rawUrl, `${path}.url`),
      username: resolveSecrets
        ? resolveEnvReference(source.username, `${path}.username`, env, { allowEmpty: true })
        : '',
      password: resolveSecrets
        ? resolveEnvReference(source.password, `${path}.password`, env, { allowEmpty: true })
        : '',
      defaultSchema: source['default-schema'],
      schemas,
      functions: new Set(functions),
    };
  });
}

/** Where the service's own database lives (DB_HOST / DB_PORT / DB_NAME). */
export interface ServiceDatabase {
  host: string;
  port: number;
  database: string;
}

/** Loopback spellings name the same server; anything else is compared as written, case-insensitively. */
function serverKey(host: string, port: number): string {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const loopback = name === 'localhost' || name === '::1' || /^127\./.test(name);
  return `${loopback ? 'loopback' : name}:${port}`;
}

/**
 * query_mysql must never read the service's own database (sessions, trace, audit): a data source on the
 * same server whose database or any allowed schema is DB_NAME stops start-up, naming the data source.
 */
export function refuseServiceDatabase(
  sources: readonly MysqlDataSourceConfig[],
  service: ServiceDatabase,
  origin: string,
): void {
  const problems = sources
    .filter((source) => {
      if (serverKey(source.host, source.port) !== serverKey(service.host, service.port)) return false;
      const databases = [source.database, source.defaultSchema, ...source.schemas.keys()];
      return databases.some((name) => name.toLowerCase() === service.database.toLowerCase());
    })
    .map(
      (source) =>
        `${origin}: harness.mysql-tools.data-sources.${source.id}: points at the service's own database ` +
        '(DB_HOST/DB_PORT/DB_NAME); query_mysql may only read a separate business database',
    );
  if (problems.length > 0) throw new ConfigValidationError(problems);
}

export function loadMysqlToolsConfig(
  file: string,
  env: Record<string, string | undefined> = process.env,
  options: ParseOptions = {},
): MysqlDataSourceConfig[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigValidationError([
      `cannot read the allowlist file ${file} (MYSQL_TOOLS_CONFIG or --config)`,
    ]);
  }
  return parseMysqlToolsConfig(text, file, env, options);
}
