import { Parser } from 'node-sql-parser';
import {
  FUNCTION_CATALOG,
  MAX_BOUNDED_TEXT,
  MAX_FORMAT_LITERAL,
  MAX_PAD_LENGTH,
  MAX_REPEAT_COUNT,
  MAX_REPLACE_LITERAL,
} from './function-catalog';
import type { MysqlDataSourceConfig } from './mysql-tools-config';

/** Stable rejection codes of the read-only SQL policy; each comes with a safe message the agent can act on. */
export const SQL_REJECTION_CODES = [
  'SQL_EMPTY',
  'SQL_TOO_LONG',
  'SQL_TOO_COMPLEX',
  'COMMENT_NOT_ALLOWED',
  'DOUBLE_QUOTES_NOT_ALLOWED',
  'COLLATE_NOT_ALLOWED',
  'EXECUTABLE_COMMENT',
  'VARIABLE_NOT_ALLOWED',
  'PARSE_ERROR',
  'MULTIPLE_STATEMENTS',
  'WRITE_NOT_ALLOWED',
  'METADATA_NOT_ALLOWED',
  'CALL_NOT_ALLOWED',
  'NOT_A_SELECT',
  'CTE_NOT_ALLOWED',
  'UNION_NOT_ALLOWED',
  'SUBQUERY_NOT_ALLOWED',
  'WINDOW_NOT_ALLOWED',
  'INTO_NOT_ALLOWED',
  'LOCKING_NOT_ALLOWED',
  'STAR_NOT_ALLOWED',
  'JOIN_NOT_ALLOWED',
  'SCHEMA_NOT_ALLOWED',
  'TABLE_NOT_ALLOWED',
  'COLUMN_NOT_ALLOWED',
  'AMBIGUOUS_COLUMN',
  'ALIAS_REFERENCE_NOT_ALLOWED',
  'FUNCTION_NOT_ALLOWED',
  'OPERATOR_NOT_ALLOWED',
  'PLACEHOLDER_MISMATCH',
  'LIMIT_NOT_LITERAL',
  'OFFSET_TOO_LARGE',
  'IDENTIFIER_NOT_ALLOWED',
  'UNSUPPORTED_SYNTAX',
] as const;
export type SqlRejectionCode = (typeof SQL_REJECTION_CODES)[number];

export type SqlPolicyResult =
  | {
      allowed: true;
      normalizedSql: string;
      placeholders: number;
      /** Positions (0-based) of the result columns that read a hidden column: their values are hidden. */
      hiddenOutputs: number[];
      warnings?: string[];
    }
  | { allowed: false; code: SqlRejectionCode; message: string };

export const MAX_SQL_LENGTH = 8000;
/**
 * Parse cost grows with the token count and nesting (about 0.2 s for 2000 `NOT`s), so both are capped
 * before the parser runs, and the AST is measured again after it; legitimate SRE queries stay far below.
 */
export const MAX_SQL_TOKENS = 600;
export const MAX_PAREN_DEPTH = 16;
/** Consecutive prefix operators (`NOT NOT …`, `- - …`): useless beyond a couple, and costly to parse. */
export const MAX_PREFIX_OPERATOR_RUN = 3;
export const MAX_AST_DEPTH = 64;
export const MAX_AST_NODES = 4000;
/**
 * LIMIT bounds the rows returned, not the rows the server reads and throws away before them: an OFFSET of
 * 4294967295 makes every call scan until the statement time limit. Paging deeper than this is a WHERE's job.
 */
export const MAX_LIMIT_OFFSET = 10_000;

const WRITE_TYPES = new Set([
  'insert',
  'replace',
  'update',
  'delete',
  'create',
  'alter',
  'drop',
  'truncate',
  'rename',
  'grant',
  'revoke',
  'load_data',
  'lock',
  'unlock',
]);
const METADATA_TYPES = new Set(['show', 'desc', 'describe', 'explain', 'use']);
const SYSTEM_SCHEMAS = new Set(['information_schema', 'mysql', 'performance_schema', 'sys']);
const JOINS = new Set(['INNER JOIN', 'JOIN', 'LEFT JOIN', 'LEFT OUTER JOIN']);
const BINARY_OPERATORS = new Set([
  '=',
  '!=',
  '<>',
  '<',
  '>',
  '<=',
  '>=',
  'AND',
  'OR',
  'IN',
  'NOT IN',
  'BETWEEN',
  'NOT BETWEEN',
  'LIKE',
  'NOT LIKE',
  'IS',
  'IS NOT',
  '+',
  '-',
  '*',
  '/',
  '%',
]);
const UNARY_OPERATORS = new Set(['NOT', '-', '+']);
const LITERALS = new Set([
  'number',
  'single_quote_string',
  'string',
  'bool',
  'boolean',
  'null',
  'hex_string',
  'full_hex_string',
  'bit_string',
]);
/** Top-level SELECT keys the policy understands; any other non-empty key is unsupported syntax. */
const SELECT_KEYS = new Set([
  'with',
  'type',
  'options',
  'distinct',
  'columns',
  'into',
  'from',
  'where',
  'groupby',
  'having',
  'orderby',
  'limit',
  'locking_read',
  'window',
  'collate',
  '_next',
  'set_op',
]);

class Rejection extends Error {
  constructor(
    readonly code: SqlRejectionCode,
    message: string,
  ) {
    super(message);
  }
}

const reject = (code: SqlRejectionCode, message: string): never => {
  throw new Rejection(code, message);
};

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const COMMENT_MESSAGE = 'Comments are not allowed in SQL; remove them.';
const TOO_COMPLEX_MESSAGE =
  `The SQL is too complex (at most ${MAX_SQL_TOKENS} tokens, ${MAX_PAREN_DEPTH} nested parentheses, ` +
  `${MAX_PREFIX_OPERATOR_RUN} operators like NOT in a row); split it into simpler queries.`;
const PREFIX_OPERATORS = new Set(['NOT', '!', '~', '-', '+']);
const WORD = /[A-Za-z0-9_$\u0080-\uffff]/;

/**
 * Scans the raw text outside quoted strings and identifiers before anything is parsed. Comments are
 * refused outright: the parser drops them, and MySQL executes `/*! ... *\/` bodies. Session and user
 * variables are refused; so are double quotes (an identifier, not a string, under ANSI_QUOTES) and
 * COLLATE (which the parser silently drops in several positions). Token count and nesting are capped
 * here, so a hostile statement costs no parse time.
 */
function checkLexically(sql: string): void {
  let tokens = 0;
  let depth = 0;
  let prefixRun = 0;
  const token = (text: string) => {
    tokens += 1;
    prefixRun = PREFIX_OPERATORS.has(text.toUpperCase()) ? prefixRun + 1 : 0;
    if (tokens > MAX_SQL_TOKENS || prefixRun > MAX_PREFIX_OPERATOR_RUN)
      reject('SQL_TOO_COMPLEX', TOO_COMPLEX_MESSAGE);
  };
  for (let i = 0; i < sql.length; i += 1) {
    const char = sql[i];
    if (char === "'" || char === '`') {
      let end = i + 1;
      for (; end < sql.length; end += 1) {
        if (sql[end] === '\\' && char === "'") end += 1;
        else if (sql[end] === char) {
          if (sql[end + 1] === char) end += 1;
          else break;
        }
      }
      if (end >= sql.length)
        reject('PARSE_ERROR', 'The SQL has an unterminated quoted string or identifier.');
      token(sql.slice(i, end + 1));
      i = end;
    } else if (char === '"') {
      reject(
        'DOUBLE_QUOTES_NOT_ALLOWED',
        "Double quotes are not allowed: write strings in single quotes ('x') and identifiers bare or in backticks.",
      );
    } else if (char === '/' && sql[i + 1] === '*') {
      const body = sql.slice(i + 2, i + 4);
      if (body.startsWith('!') || body.startsWith('M!'))
        reject('EXECUTABLE_COMMENT', 'MySQL executable comments (/*! ... */) are not allowed.');
      reject('COMMENT_NOT_ALLOWED', COMMENT_MESSAGE);
    } else if (char === '#' || (char === '-' && sql[i + 1] === '-')) {
      reject('COMMENT_NOT_ALLOWED', COMMENT_MESSAGE);
    } else if (char === '@') {
      reject('VARIABLE_NOT_ALLOWED', 'User and system variables (@x, @@x) are not allowed.');
    } else if (WORD.test(char)) {
      let end = i + 1;
      while (end < sql.length && WORD.test(sql[end])) end += 1;
      const word = sql.slice(i, end);
      if (word.toUpperCase() === 'COLLATE')
        reject('COLLATE_NOT_ALLOWED', 'COLLATE is not allowed; compare without it.');
      token(word);
      i = end - 1;
    } else if (char === '(') {
      depth += 1;
      if (depth > MAX_PAREN_DEPTH) reject('SQL_TOO_COMPLEX', TOO_COMPLEX_MESSAGE);
      token(char);
    } else if (char === ')') {
      depth -= 1;
      token(char);
    } else if (!/\s/.test(char)) {
      token(char);
    }
  }
}

/** Depth and node count of the parsed statement, walked without recursion. */
function checkAstSize(root: unknown): void {
  const stack: [unknown, number][] = [[root, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    nodes += 1;
    if (nodes > MAX_AST_NODES || depth > MAX_AST_DEPTH) reject('SQL_TOO_COMPLEX', TOO_COMPLEX_MESSAGE);
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
}

/**
 * Upper-cased words of the text outside single-quoted strings, backticked identifiers included, with
 * their counts. A word of the original that the regenerated SQL has fewer of was dropped by the parser.
 */
function wordCounts(sql: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (word: string) => counts.set(word, (counts.get(word) ?? 0) + 1);
  for (const match of sql.matchAll(
    /'(?:[^'\\]|\\.|'')*'|`((?:[^`]|``)*)`|([A-Za-z_][A-Za-z0-9_$]*)|[0-9][A-Za-z0-9_$.]*/g,
  )) {
    if (match[1] !== undefined) add(match[1].replace(/``/g, '`').toUpperCase());
    else if (match[2] !== undefined) add(match[2].toUpperCase());
  }
  return counts;
}

/** Words the regenerated SQL may legitimately drop (`LEFT OUTER JOIN` is written `LEFT JOIN`). */
const DROPPABLE_WORDS = new Set(['OUTER']);

/** Words of `original` that `regenerated` has fewer of: syntax the parser silently dropped. */
export function droppedWords(original: string, regenerated: string): string[] {
  const after = wordCounts(regenerated);
  return [...wordCounts(original)]
    .filter(([word, count]) => !DROPPABLE_WORDS.has(word) && (after.get(word) ?? 0) < count)
    .map(([word]) => word);
}

interface ScopeTable {
  alias: string;
  schema: string;
  table: string;
  columns: ReadonlySet<string>;
  /** Column names as MySQL compares them: case-insensitively. */
  folded: ReadonlySet<string>;
  /** The hidden columns (see hiddenColumnsOf), folded. */
  hidden: ReadonlySet<string>;
}

/** The unit keyword TIMESTAMPDIFF/TIMESTAMPADD take as their first argument (parsed as a bare word). */
const TIMESTAMP_UNITS = new Set([
  'MICROSECOND',
  'SECOND',
  'MINUTE',
  'HOUR',
  'DAY',
  'WEEK',
  'MONTH',
  'QUARTER',
  'YEAR',
]);
const UNIT_FUNCTIONS = new Set(['TIMESTAMPDIFF', 'TIMESTAMPADD']);

type Clause = 'select' | 'where' | 'join' | 'group' | 'having' | 'order';

function identifier(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (isNode(value) && typeof value.value === 'string') return value.value;
  if (isNode(value) && isNode(value.expr) && typeof value.expr.value === 'string') return value.expr.value;
  return null;
}

/**
 * The only names the policy accepts for schemas, tables, columns and aliases: plain ASCII, as in the
 * allowlist file. sqlify re-emits a name inside backticks without escaping it (a quoted alias holding a
 * backtick became SQL), and outside ASCII JavaScript's case folding is not the server's (the Kelvin sign
 * lower-cases to k here, not there), so any other name could be checked as one thing and run as another.
 */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,63}$/;
const NAME_MESSAGE =
  'Schema, table, column and alias names must be plain ASCII identifiers: letters, digits, _ and $, ' +
  "not starting with a digit, at most 64 characters (AS order_count, not AS '订单数' or AS `a b`).";

function plainName(value: unknown): string | null {
  const name = identifier(value);
  if (name !== null && !PLAIN_NAME.test(name)) reject('IDENTIFIER_NOT_ALLOWED', NAME_MESSAGE);
  return name;
}

/**
 * A built-in's name, upper-cased. Only ASCII: JavaScript upper-cases `ı` to I and `ſ` to S, so `ıfnull`
 * would pass as IFNULL, while MariaDB calls a stored function of that name.
 */
function builtinName(raw: unknown): string {
  const name = String(raw ?? '');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    reject(
      'FUNCTION_NOT_ALLOWED',
      'Function names must be plain ASCII (letters, digits, _): any other spelling is no built-in for the server.',
    );
  return name.toUpperCase();
}

function functionName(node: Node): string {
  const name = node.name;
  if (isNode(name) && Array.isArray(name.name)) {
    if (name.name.length !== 1 || (isNode(name) && name.schema))
      reject('FUNCTION_NOT_ALLOWED', 'Qualified function names are not allowed.');
    const part = name.name[0] as Node;
    // `origin` is a keyword function without parentheses (CURRENT_DATE). MariaDB resolves a quoted name (`NOW`()) to a stored function of the schema, not the built-in.
    if (part.type !== 'default' && part.type !== 'origin')
      reject(
        'FUNCTION_NOT_ALLOWED',
        'Quoted function names are not allowed; write the built-in name unquoted.',
      );
    return builtinName(part.value);
  }
  return builtinName(name);
}

/**
 * How large a value can be: `const` is bounded by a constant (a literal, a ?, a number or date), `data` by
 * the size of a stored value, `grown` is the output of a growing function (see function-catalog.ts).
 */
type Size = 'const' | 'data' | 'grown';
const SIZE_RANK: Record<Size, number> = { const: 0, data: 1, grown: 2 };
const larger = (a: Size, b: Size): Size => (SIZE_RANK[a] >= SIZE_RANK[b] ? a : b);

const isParam = (node: unknown): boolean => isNode(node) && node.type === 'origin' && node.value === '?';

function integerLiteral(node: unknown): number | null {
  return isNode(node) && node.type === 'number' && Number.isInteger(node.value)
    ? (node.value as number)
    : null;
}

/** An integer literal from 0 to MAX_BOUNDED_TEXT: a length that bounds a text. */
function boundedLength(node: unknown): boolean {
  const value = integerLiteral(node);
  return value !== null && value >= 0 && value <= MAX_BOUNDED_TEXT;
}

function stringLiteral(node: unknown): string | null {
  return isNode(node) &&
    ['single_quote_string', 'string'].includes(String(node.type)) &&
    typeof node.value === 'string'
    ? node.value
    : null;
}

const COST_MESSAGE =
  'Growing string functions (CONCAT, REPLACE, REPEAT, …) may not take the result of another growing function, ' +
  'and their size arguments must be small literals; see docs/query-mysql-functions.md.';

/** The size of a function's value from its cost model, refusing the uses the model cannot bound. */
function functionSize(name: string, args: unknown[], sizes: Size[]): Size {
  const model =
    FUNCTION_CATALOG.get(name) ?? reject('FUNCTION_NOT_ALLOWED', `Function ${name} is not allowed.`);
  const largest = sizes.reduce<Size>(larger, 'const');
  const noGrownArgument = () => {
    if (largest === 'grown') reject('FUNCTION_NOT_ALLOWED', `${name}: ${COST_MESSAGE}`);
  };
  const boundedCount = (node: unknown, max: number) => {
    const count = integerLiteral(node);
    if (count === null || count < 0 || count > max)
      reject(
        'FUNCTION_NOT_ALLOWED',
        `${name} needs an integer literal from 0 to ${max} as its length or count. ${COST_MESSAGE}`,
      );
  };
  switch (model.cost) {
    case 'aggregate':
    case 'clock':
    case 'scalar':
      return 'const';
    case 'passthrough':
      return largest;
    case 'growing':
      noGrownArgument();
      return 'grown';
    case 'replace': {
      const from = stringLiteral(args[1]);
      const to = stringLiteral(args[2]);
      if (args.length !== 3 || sizes[0] !== 'const')
        reject(
          'FUNCTION_NOT_ALLOWED',
          `REPLACE works on a bounded text only: a literal, a ? or LEFT/RIGHT/SUBSTRING with a literal length ≤ ${MAX_BOUNDED_TEXT} ` +
            `(REPLACE(LEFT(error_code, 100), '_', ' ')). ${COST_MESSAGE}`,
        );
      if (
        from === null ||
        to === null ||
        from.length === 0 ||
        [...from].length > MAX_REPLACE_LITERAL ||
        [...to].length > MAX_REPLACE_LITERAL
      )
        reject(
          'FUNCTION_NOT_ALLOWED',
          `REPLACE takes non-empty string literals of at most ${MAX_REPLACE_LITERAL} characters as its search and replacement. ${COST_MESSAGE}`,
        );
      return [...to!].length <= [...from!].length ? 'const' : 'grown';
    }
    case 'prefix':
      return boundedLength(args[1]) ? 'const' : (sizes[0] ?? 'const');
    case 'substring':
      return args.length === 3 && boundedLength(args[2]) ? 'const' : (sizes[0] ?? 'const');
    case 'repeat':
      noGrownArgument();
      boundedCount(args[1], MAX_REPEAT_COUNT);
      return 'grown';
    case 'pad':
      boundedCount(args[1], MAX_PAD_LENGTH);
      return 'const';
    case 'space':
      boundedCount(args[0], MAX_PAD_LENGTH);
      return 'const';
    case 'format': {
      // Without a format (FROM_UNIXTIME(ts)) the value is a datetime.
      if (args.length < 2) return 'const';
      const format = stringLiteral(args[1]);
      if (!isParam(args[1]) && (format === null || [...format].length > MAX_FORMAT_LITERAL))
        reject(
          'FUNCTION_NOT_ALLOWED',
          `${name} takes a string literal of at most ${MAX_FORMAT_LITERAL} characters or a ? as its format. ${COST_MESSAGE}`,
        );
      return 'const';
    }
  }
}

/** The name a select item's result column gets: its alias, or the column it reads as is. */
function resultName(column: Node): string | null {
  const expr = isNode(column.expr) ? column.expr : {};
  return identifier(column.as) ?? (expr.type === 'column_ref' ? identifier(expr.column) : null);
}

/** Walks one parsed SELECT against the data source allowlist, counting `?` placeholders. */
class SelectChecker {
  placeholders = 0;
  readonly warnings: string[] = [];
  /** Select items whose expression reads a hidden column, by position. */
  readonly hiddenOutputs: number[] = [];
  /** Per select item, the name its result column gets from the statement (its alias or column), or null. */
  readonly resultNames: (string | null)[] = [];
  private readsHidden = false;
  private readonly scope: ScopeTable[] = [];
  private readonly selectAliases = new Set<string>();
  /**
   * How many FROM tables a column reference may name: all of them, except in the ON of the k-th join,
   * where MariaDB and MySQL see only the tables joined so far (0..k).
   */
  private visible = Number.POSITIVE_INFINITY;

  constructor(private readonly source: MysqlDataSourceConfig) {}

  check(ast: Node): void {
    if (ast.with) reject('CTE_NOT_ALLOWED', 'WITH (common table expressions) is not allowed.');
    if (ast._next || ast.set_op)
      reject('UNION_NOT_ALLOWED', 'UNION and other set operations are not allowed.');
    for (const [key, value] of Object.entries(ast)) {
      if (!SELECT_KEYS.has(key) && value !== null && value !== undefined)
        reject('UNSUPPORTED_SYNTAX', `Unsupported SQL clause (${key}).`);
    }
    if (isNode(ast.into) && ast.into.position) reject('INTO_NOT_ALLOWED', 'SELECT ... INTO is not allowed.');
    if (ast.locking_read) reject('LOCKING_NOT_ALLOWED', 'FOR UPDATE / LOCK IN SHARE MODE are not allowed.');
    if (ast.window) reject('WINDOW_NOT_ALLOWED', 'Window functions are not allowed.');
    if (ast.options)
      reject('UNSUPPORTED_SYNTAX', 'SELECT modifiers (e.g. SQL_CALC_FOUND_ROWS) are not allowed.');
    if (ast.collate) reject('UNSUPPORTED_SYNTAX', 'COLLATE is not allowed.');
    if (ast.distinct !== null && ast.distinct !== undefined && ast.distinct !== 'DISTINCT')
      reject('UNSUPPORTED_SYNTAX', 'Unsupported DISTINCT form.');

    this.resolveFrom(ast.from);
    const columns = Array.isArray(ast.columns)
      ? ast.columns
      : reject('STAR_NOT_ALLOWED', 'List the columns explicitly; * is not allowed.');
    for (const column of columns) {
      if (!isNode(column)) reject('UNSUPPORTED_SYNTAX', 'Unsupported select list item.');
      const alias = plainName(column.as);
      if (alias) this.selectAliases.add(alias);
    }
    // Any select item that reads a hidden column is hidden whole, whatever it computes or is called:
    // CONCAT(phone, '') or `phone AS contact` must not show what `phone` would not.
    (columns as Node[]).forEach((column, index) => {
      this.readsHidden = false;
      this.expression(column.expr, 'select');
      if (this.readsHidden) this.hiddenOutputs.push(index);
      this.resultNames.push(resultName(column));
    });
    this.warnDuplicateNames();
    (ast.from as Node[]).forEach((item, index) => {
      if (index === 0) return;
      this.visible = index + 1;
      this.expression(item.on, 'join');
    });
    this.visible = Number.POSITIVE_INFINITY;
    this.checkJoinRelations(ast.from as Node[]);
    if (ast.where) this.expression(ast.where, 'where');
    if (ast.groupby) {
      const group = ast.groupby as Node;
      if (Array.isArray(group.modifiers) && group.modifiers.some((modifier) => modifier))
        reject('UNSUPPORTED_SYNTAX', 'GROUP BY modifiers (WITH ROLLUP) are not allowed.');
      for (const column of (group.columns as unknown[]) ?? []) this.expression(column, 'group');
    }
    if (ast.having) this.expression(ast.having, 'having');
    for (const order of (ast.orderby as Node[] | null) ?? []) {
      // Only a whole ORDER BY item is resolved to a select alias before a table column, by MariaDB and
      // MySQL alike; everywhere else a name that is also a hidden column would read that column.
      if (this.isAliasItem(order.expr)) continue;
      this.expression(order.expr, 'order');
    }
  }

  /**
   * Result columns that share a name (`o.status, p.status`) are all returned, qualified with their table
   * alias; a distinct alias reads better, so sql-check says so.
   */
  private warnDuplicateNames(): void {
    const counts = new Map<string, number>();
    for (const name of this.resultNames) if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
    for (const [name, count] of counts) {
      if (count > 1)
        this.warnings.push(
          `DUPLICATE_RESULT_NAME: ${count} result columns are named ${name}; they are returned qualified ` +
            `(alias.${name}) or numbered (${name}#2); give each a distinct alias.`,
        );
    }
  }

  private isAliasItem(expr: unknown): boolean {
    if (!isNode(expr) || expr.type !== 'column_ref' || expr.table || expr.collate || expr.parentheses)
      return false;
    const name = identifier(expr.column);
    return name !== null && this.selectAliases.has(name);
  }

  private resolveFrom(from: unknown): void {
    if (!Array.isArray(from) || from.length === 0)
      reject('TABLE_NOT_ALLOWED', 'A FROM clause with an allowlisted table is required.');
    (from as unknown[]).forEach((item, index) => {
      if (!isNode(item)) return reject('UNSUPPORTED_SYNTAX', 'Unsupported FROM item.');
      if (item.expr || !item.table)
        reject('SUBQUERY_NOT_ALLOWED', 'Subqueries and derived tables are not allowed.');
      if (index > 0) {
        if (!item.join)
          reject('JOIN_NOT_ALLOWED', 'Comma joins are not allowed; use INNER JOIN or LEFT JOIN with ON.');
        if (!JOINS.has(String(item.join)))
          reject('JOIN_NOT_ALLOWED', `${String(item.join)} is not allowed; use INNER JOIN or LEFT JOIN.`);
        if (!item.on || item.using)
          reject('JOIN_NOT_ALLOWED', 'Joins need an ON condition (USING is not allowed).');
      } else if (item.join || item.on) {
        reject('UNSUPPORTED_SYNTAX', 'Unsupported FROM clause.');
      }
      for (const key of Object.keys(item)) {
        if (!['db', 'table', 'as', 'join', 'on', 'using'].includes(key) && item[key])
          reject('UNSUPPORTED_SYNTAX', 'Unsupported table reference (index hints, partitions, ...).');
      }
      const table = plainName(item.table)!;
      const schema = plainName(item.db) ?? this.source.defaultSchema;
      if (SYSTEM_SCHEMAS.has(schema.toLowerCase()))
        reject('METADATA_NOT_ALLOWED', 'System schemas (information_schema, mysql, ...) are not allowed.');
      const allowedTables =
        this.source.schemas.get(schema) ??
        reject(
          'SCHEMA_NOT_ALLOWED',
          `Schema ${schema} is not allowlisted for this data source. ${allowedTablesText(this.source)}`,
        );
      const allowed =
        allowedTables.get(table) ??
        reject(
          'TABLE_NOT_ALLOWED',
          `Table ${schema}.${table} is not allowlisted. ${allowedTablesText(this.source)}`,
        );
      const alias = plainName(item.as) ?? table;
      // Case-insensitive: servers with lower_case_table_names fold aliases, and two aliases that differ
      // only in case must not resolve differently here and there.
      if (this.scope.some((entry) => entry.alias.toLowerCase() === alias.toLowerCase()))
        reject('AMBIGUOUS_COLUMN', `Table alias ${alias} is used twice.`);
      this.scope.push({
        alias,
        schema,
        table,
        columns: allowed.columns,
        folded: new Set([...allowed.columns].map((column) => column.toLowerCase())),
        hidden: new Set([...allowed.hidden].map((column) => column.toLowerCase())),
      });
    });
  }

  /** After the ON columns are known to be allowlisted: each ON must really relate its table to an earlier one. */
  private checkJoinRelations(from: Node[]): void {
    from.slice(1).forEach((item, offset) => {
      if (!this.relatesJoined(item.on, offset + 1))
        reject(
          'JOIN_NOT_ALLOWED',
          'Each JOIN ... ON must compare a column of the joined table with a column of an earlier table ' +
            '(ON b.order_id = a.order_id); a condition that never relates them (ON 1 = 1) is a cross join.',
        );
    });
  }

  /** Whether an AND-conjunct of `on` is `joined.col = earlier.col` (either way round). */
  private relatesJoined(on: unknown, joined: number): boolean {
    if (!isNode(on) || on.type !== 'binary_expr') return false;
    const operator = String(on.operator).toUpperCase();
    if (operator === 'AND')
      return this.relatesJoined(on.left, joined) || this.relatesJoined(on.right, joined);
    if (operator !== '=') return false;
    const left = this.ownerIndex(on.left, joined);
    const right = this.ownerIndex(on.right, joined);
    return (
      (left === joined && right !== null && right < joined) ||
      (right === joined && left !== null && left < joined)
    );
  }

  /** Which of the first `upTo`+1 tables a plain column reference belongs to, or null. */
  private ownerIndex(node: unknown, upTo: number): number | null {
    if (!isNode(node) || node.type !== 'column_ref') return null;
    const column = identifier(node.column)?.toLowerCase();
    if (!column) return null;
    const qualifier = identifier(node.table)?.toLowerCase();
    const candidates = this.scope
      .slice(0, upTo + 1)
      .map((entry, index) => ({ entry, index }))
      .filter(
        ({ entry }) =>
          (qualifier ? entry.alias.toLowerCase() === qualifier : true) && entry.folded.has(column),
      );
    return candidates.length === 1 ? candidates[0].index : null;
  }

  /** Checks an expression and returns how large its value can be (see function-catalog.ts). */
  private expression(value: unknown, clause: Clause): Size {
    if (Array.isArray(value))
      return value.reduce<Size>((size, item) => larger(size, this.expression(item, clause)), 'const');
    if (!isNode(value)) return reject('UNSUPPORTED_SYNTAX', 'Unsupported expression.');
    if ('ast' in value || value.type === 'select')
      reject('SUBQUERY_NOT_ALLOWED', 'Subqueries are not allowed.');
    if (value.over) reject('WINDOW_NOT_ALLOWED', 'Window functions are not allowed.');
    const type = String(value.type);
    if (LITERALS.has(type)) return 'const';
    switch (type) {
      case 'origin':
        if (value.value !== '?') reject('UNSUPPORTED_SYNTAX', 'Unsupported expression.');
        this.placeholders += 1;
        return 'const';
      case 'param':
      case 'var':
        return reject(
          'VARIABLE_NOT_ALLOWED',
          'Only ? placeholders are allowed; no named parameters or variables.',
        );
      case 'column_ref':
        this.column(value, clause);
        return 'data';
      case 'star':
        return reject('STAR_NOT_ALLOWED', 'List the columns explicitly; * is not allowed.');
      case 'aggr_func': {
        const name = builtinName(value.name);
        this.allowFunction(name);
        const args = isNode(value.args) ? value.args : reject('UNSUPPORTED_SYNTAX', 'Unsupported aggregate.');
        for (const key of Object.keys(args)) {
          if (!['expr', 'distinct'].includes(key) && args[key])
            reject('UNSUPPORTED_SYNTAX', 'Unsupported aggregate options.');
        }
        if (isNode(args.expr) && args.expr.type === 'star') {
          if (name !== 'COUNT') reject('STAR_NOT_ALLOWED', 'Only COUNT(*) may use *.');
          return 'const';
        }
        const size = this.expression(args.expr, clause);
        return name === 'MIN' || name === 'MAX' ? size : 'const';
      }
      case 'function': {
        const name = functionName(value);
        const args = value.args;
        let list: unknown[] = [];
        let sizes: Size[] = [];
        if (args !== null && args !== undefined) {
          if (!isNode(args) || args.type !== 'expr_list')
            return reject('UNSUPPORTED_SYNTAX', 'Unsupported function arguments.');
          list = Array.isArray(args.value) ? (args.value as unknown[]) : [];
          const [first] = list;
          if (
            UNIT_FUNCTIONS.has(name) &&
            isNode(first) &&
            first.type === 'origin' &&
            TIMESTAMP_UNITS.has(String(first.value).toUpperCase())
          )
            list = list.slice(1);
          // Arguments first, so EXISTS (SELECT ...) is reported as the subquery it is.
          if (Array.isArray(args.value)) sizes = list.map((item) => this.expression(item, clause));
          else this.expression(args.value, clause);
        }
        // The parser reads `NOT (expr)` as a call of NOT: it is the operator, not a function.
        if (name === 'NOT' && isNode(args) && Array.isArray(args.value) && args.value.length === 1)
          return 'const';
        this.allowFunction(name);
        return functionSize(name, list, sizes);
      }
      case 'expr_list':
        return this.expression(value.value ?? [], clause);
      case 'binary_expr':
        if (!BINARY_OPERATORS.has(String(value.operator).toUpperCase()))
          reject('OPERATOR_NOT_ALLOWED', `Operator ${String(value.operator)} is not allowed.`);
        // Comparisons, logic and arithmetic: a number or a truth value.
        this.expression(value.left, clause);
        this.expression(value.right, clause);
        return 'const';
      case 'unary_expr':
        if (!UNARY_OPERATORS.has(String(value.operator).toUpperCase()))
          reject('OPERATOR_NOT_ALLOWED', `Operator ${String(value.operator)} is not allowed.`);
        this.expression(value.expr, clause);
        return 'const';
      case 'case': {
        let size: Size = 'const';
        if (value.expr) this.expression(value.expr, clause);
        for (const branch of (value.args as Node[]) ?? []) {
          if (branch.type === 'when') this.expression(branch.cond, clause);
          else if (branch.type !== 'else') reject('UNSUPPORTED_SYNTAX', 'Unsupported CASE branch.');
          size = larger(size, this.expression(branch.result, clause));
        }
        return size;
      }
      case 'interval':
        this.expression(value.expr, clause);
        return 'const';
      default:
        return reject('UNSUPPORTED_SYNTAX', `Unsupported SQL expression (${type}).`);
    }
  }

  private allowFunction(name: string): void {
    if (!this.source.functions.has(name) || !FUNCTION_CATALOG.has(name))
      reject('FUNCTION_NOT_ALLOWED', `Function ${name} is not allowed.`);
  }

  private column(node: Node, clause: Clause): void {
    if (node.collate) reject('COLLATE_NOT_ALLOWED', 'COLLATE is not allowed; compare without it.');
    const column = identifier(node.column);
    if (!column) return reject('UNSUPPORTED_SYNTAX', 'Unsupported column reference.');
    if (column === '*') reject('STAR_NOT_ALLOWED', 'List the columns explicitly; * and t.* are not allowed.');
    plainName(column);
    const qualifier = plainName(node.table);
    const schema = plainName(node.db ?? node.schema);
    const scope = this.scope.slice(0, this.visible);
    if (qualifier) {
      const entry =
        scope.find(
          (candidate) => candidate.alias === qualifier && (!schema || candidate.schema === schema),
        ) ??
        reject(
          'TABLE_NOT_ALLOWED',
          `Unknown table reference ${schema ? `${schema}.` : ''}${qualifier}` +
            (scope.length < this.scope.length
              ? `; a join condition may only name the tables joined so far (${tablesText(scope)}).`
              : `; this query's tables are ${tablesText(scope)}.`),
        );
      if (!entry.folded.has(column.toLowerCase()))
        reject(
          'COLUMN_NOT_ALLOWED',
          `Column ${entry.table}.${column} is not allowlisted. ${allowedColumnsText([entry])}`,
        );
      if (entry.hidden.has(column.toLowerCase())) this.readsHidden = true;
      return;
    }
    const owners = scope.filter((entry) => entry.folded.has(column.toLowerCase()));
    if (owners.length === 0) {
      if (this.selectAliases.has(column))
        reject(
          'ALIAS_REFERENCE_NOT_ALLOWED',
          `${column} is a select alias, not a column; an alias may only be a whole ORDER BY item ` +
            `(ORDER BY ${column} DESC). In ${CLAUSE_NAMES[clause]} repeat the expression instead ` +
            '(e.g. GROUP BY error_code, HAVING COUNT(*) > ?).',
        );
      reject(
        'COLUMN_NOT_ALLOWED',
        `Column ${column} is not allowlisted for the tables in this query. ${allowedColumnsText(this.scope)}`,
      );
    }
    // The server resolves an unqualified name among every column of the tables in scope, hidden ones
    // included, which the policy cannot see: with more than one table only a qualified name is certain.
    if (this.scope.length > 1)
      reject(
        'AMBIGUOUS_COLUMN',
        `Column ${column} must be qualified with its table alias (${owners[0].alias}.${column}) when the ` +
          'query has more than one table.',
      );
    if (owners[0].hidden.has(column.toLowerCase())) this.readsHidden = true;
  }
}

function tablesText(scope: readonly ScopeTable[]): string {
  return scope
    .map((entry) => (entry.alias === entry.table ? entry.table : `${entry.alias} (${entry.table})`))
    .join(', ');
}

const CLAUSE_NAMES: Record<Clause, string> = {
  select: 'the select list',
  where: 'WHERE',
  join: 'a join condition',
  group: 'GROUP BY',
  having: 'HAVING',
  order: 'an ORDER BY expression',
};

/** Bounds of the allowlist excerpts in refusal messages, so a large allowlist cannot flood the agent. */
const MAX_LISTED_TABLES = 40;
const MAX_LISTED_COLUMNS = 60;

function bounded(names: string[], max: number): string {
  const sorted = [...names].sort();
  const shown = sorted.slice(0, max).join(', ');
  return sorted.length > max ? `${shown}, … (${sorted.length - max} more)` : shown;
}

/** The tables of the data source; those of the default schema unqualified, the others as schema.table. */
function allowedTablesText(source: MysqlDataSourceConfig): string {
  const tables: string[] = [];
  for (const [schema, schemaTables] of source.schemas) {
    for (const table of schemaTables.keys())
      tables.push(schema === source.defaultSchema ? table : `${schema}.${table}`);
  }
  return `Allowed tables of data source ${source.id}: ${bounded(tables, MAX_LISTED_TABLES)}.`;
}

function allowedColumnsText(tables: readonly ScopeTable[]): string {
  const perTable = Math.max(1, Math.floor(MAX_LISTED_COLUMNS / Math.max(1, tables.length)));
  return `Allowed columns: ${tables
    .map((entry) => `${entry.table}: ${bounded([...entry.columns], perTable)}`)
    .join('; ')}.`;
}

function statementType(ast: Node): string {
  return String(ast.type ?? '').toLowerCase();
}

function limitValue(node: unknown): number {
  if (
    !isNode(node) ||
    node.type !== 'number' ||
    !Number.isInteger(node.value) ||
    (node.value as number) < 0
  ) {
    return reject('LIMIT_NOT_LITERAL', 'LIMIT and OFFSET must be non-negative integer literals.');
  }
  return node.value as number;
}

function offsetValue(node: unknown): number {
  const offset = limitValue(node);
  if (offset > MAX_LIMIT_OFFSET)
    reject(
      'OFFSET_TOO_LARGE',
      `OFFSET may be at most ${MAX_LIMIT_OFFSET}: the server reads every skipped row. Narrow the WHERE ` +
        '(a time window, a key range) instead of paging deep.',
    );
  return offset;
}

/** Injects LIMIT maxRows, or lowers a larger one, keeping any offset up to MAX_LIMIT_OFFSET. */
function capLimit(ast: Node, maxRows: number): void {
  const limit = isNode(ast.limit) ? ast.limit : null;
  const values = limit && Array.isArray(limit.value) ? (limit.value as unknown[]) : [];
  const number = (value: number) => ({ type: 'number', value });
  if (values.length === 0) {
    ast.limit = { seperator: '', value: [number(maxRows)] };
    return;
  }
  const separator = String(limit!.seperator ?? '');
  if (values.length === 1 && separator === '') {
    ast.limit = { seperator: '', value: [number(Math.min(limitValue(values[0]), maxRows))] };
  } else if (values.length === 2 && separator === ',') {
    ast.limit = {
      seperator: ',',
      value: [number(offsetValue(values[0])), number(Math.min(limitValue(values[1]), maxRows))],
    };
  } else if (values.length === 2 && separator.toLowerCase() === 'offset') {
    ast.limit = {
      seperator: 'offset',
      value: [number(Math.min(limitValue(values[0]), maxRows)), number(offsetValue(values[1]))],
    };
  } else {
    reject('LIMIT_NOT_LITERAL', 'Unsupported LIMIT form.');
  }
}

/**
 * Writes every table schema-qualified, in the schema the policy resolved it in. Otherwise the server
 * resolves an unqualified table in the session's current database, which is the url's database when the
 * url names one, and nothing makes that default-schema. Qualifying (rather than refusing such a config at
 * start-up) makes the statement mean the same on any connection, and sql-check shows exactly what runs.
 */
function qualifyTables(ast: Node, source: MysqlDataSourceConfig): void {
  for (const item of ast.from as Node[]) item.db = identifier(item.db) ?? source.defaultSchema;
}

const parser = new Parser();
const DIALECT = { database: 'MySQL' };

interface CheckedStatement {
  normalizedSql: string;
  placeholders: number;
  hiddenOutputs: number[];
  resultNames: (string | null)[];
  warnings: string[];
}

function checkOnce(
  sql: string,
  paramCount: number,
  source: MysqlDataSourceConfig,
  maxRows: number,
): CheckedStatement {
  if (sql.trim() === '') reject('SQL_EMPTY', 'The SQL is empty.');
  if (sql.length > MAX_SQL_LENGTH)
    reject('SQL_TOO_LONG', `The SQL is longer than ${MAX_SQL_LENGTH} characters.`);
  checkLexically(sql);
  let parsed: unknown;
  try {
    parsed = parser.astify(sql, DIALECT);
  } catch {
    reject('PARSE_ERROR', 'The SQL could not be parsed as a single MySQL SELECT; simplify it.');
  }
  const statements = Array.isArray(parsed) ? parsed : [parsed];
  if (statements.length !== 1)
    reject(
      statements.length === 0 ? 'SQL_EMPTY' : 'MULTIPLE_STATEMENTS',
      'Exactly one statement is allowed.',
    );
  const ast = statements[0] as Node;
  checkAstSize(ast);
  const type = statementType(ast);
  if (WRITE_TYPES.has(type)) reject('WRITE_NOT_ALLOWED', 'Only read-only SELECT statements are allowed.');
  if (METADATA_TYPES.has(type))
    reject('METADATA_NOT_ALLOWED', 'Metadata statements (SHOW, DESCRIBE, EXPLAIN) are not allowed.');
  if (type === 'call') reject('CALL_NOT_ALLOWED', 'CALL is not allowed.');
  if (type !== 'select') reject('NOT_A_SELECT', 'Only a single SELECT statement is allowed.');
  const checker = new SelectChecker(source);
  checker.check(ast);
  capLimit(ast, maxRows);
  qualifyTables(ast, source);
  if (checker.placeholders !== paramCount) {
    reject(
      'PLACEHOLDER_MISMATCH',
      `The SQL has ${checker.placeholders} ? placeholder(s) but ${paramCount} param(s) were given.`,
    );
  }
  return {
    normalizedSql: parser.sqlify(ast as never, DIALECT),
    placeholders: checker.placeholders,
    hiddenOutputs: checker.hiddenOutputs,
    resultNames: checker.resultNames,
    warnings: checker.warnings,
  };
}

const sameList = <T>(a: readonly T[], b: readonly T[]): boolean =>
  a.length === b.length && a.every((value, index) => value === b[index]);

/**
 * The read-only SQL policy of query_mysql, on the AST and fail-closed. What runs is the
 * regenerated SQL, never the original text; a statement whose regenerated form does not check out to
 * itself again is something the parser cannot fully represent, and is refused. Everything returned
 * (hidden positions, warnings) comes from the check of the regenerated SQL, the statement that runs; the
 * first check only produces it, and must agree with it item by item.
 */
export function checkSql(
  sql: string,
  paramCount: number,
  source: MysqlDataSourceConfig,
  maxRows: number,
): SqlPolicyResult {
  try {
    const first = checkOnce(sql, paramCount, source, maxRows);
    if (droppedWords(sql, first.normalizedSql).length > 0)
      reject('UNSUPPORTED_SYNTAX', 'The SQL uses syntax that cannot be checked exactly; simplify it.');
    const final = checkOnce(first.normalizedSql, paramCount, source, maxRows);
    // One result name per select item: equal lists also mean as many result columns as were checked.
    if (
      final.normalizedSql !== first.normalizedSql ||
      !sameList(final.resultNames, first.resultNames) ||
      !sameList(final.hiddenOutputs, first.hiddenOutputs)
    ) {
      reject('UNSUPPORTED_SYNTAX', 'The SQL uses syntax that cannot be checked exactly; simplify it.');
    }
    const { normalizedSql, placeholders, hiddenOutputs, warnings } = final;
    return {
      allowed: true,
      normalizedSql,
      placeholders,
      hiddenOutputs,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  } catch (error) {
    if (error instanceof Rejection) return { allowed: false, code: error.code, message: error.message };
    return {
      allowed: false,
      code: 'UNSUPPORTED_SYNTAX',
      message: 'The SQL uses syntax that cannot be checked; simplify it.',
    };
  }
}
