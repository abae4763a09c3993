/**
 * Every function the query_mysql policy can reason about, with its cost model: how the size of its
 * output relates to its arguments. A function outside this catalog cannot be allowlisted at all
 * (allowed-functions naming one stops start-up); `inDefault` marks the default allowlist.
 *
 * Why a cost model and not a name list: MariaDB does not check the kill flag inside string functions,
 * so `REPLACE(REPLACE(?, 'x', ?), 'x', ?)` runs quadratic work that neither max_statement_time nor KILL
 * stops. So a function whose output can be larger than its inputs ("growing") never takes the output of
 * another growing function, and its size arguments are bounded literals.
 */
export type FunctionCost =
  /** One value per group: COUNT/SUM/AVG are numbers, MIN/MAX no larger than their argument. */
  | 'aggregate'
  /** No data argument: the clock. */
  | 'clock'
  /**
   * A number, date or time whatever the arguments' size (a number read from a long string is a double:
   * at most about 310 characters). A function whose output size follows a string argument is never scalar.
   */
  | 'scalar'
  /** No larger than its largest argument (case, trim, substring, null handling). */
  | 'passthrough'
  /** Up to the sum of its arguments; no argument may itself be grown. */
  | 'growing'
  /**
   * REPLACE(str, from, to): quadratic in the length of `str` inside the server (every match shifts the
   * rest; 256 Ki characters took 25 s past a 20 s max_statement_time), so `str` must be bounded (a literal,
   * a ?, or LEFT/RIGHT/SUBSTRING with a literal length ≤ MAX_BOUNDED_TEXT) and `from`/`to` short literals.
   */
  | 'replace'
  /** LEFT/RIGHT(str, n): bounded when n is an integer literal ≤ MAX_BOUNDED_TEXT, else as large as str. */
  | 'prefix'
  /** SUBSTRING(str, pos, n): bounded when n is an integer literal ≤ MAX_BOUNDED_TEXT, else as large as str. */
  | 'substring'
  /** REPEAT(str, n): n an integer literal ≤ MAX_REPEAT_COUNT; growing. */
  | 'repeat'
  /** LPAD/RPAD(str, n, pad): n an integer literal ≤ MAX_PAD_LENGTH; the output is at most n characters. */
  | 'pad'
  /** SPACE(n): n an integer literal ≤ MAX_PAD_LENGTH. */
  | 'space'
  /**
   * DATE_FORMAT/TIME_FORMAT/FROM_UNIXTIME(value, format): the format itself with its directives expanded
   * (`%r` turns 2 characters into 11), so the format must be a string literal of at most
   * MAX_FORMAT_LITERAL characters or a ? (a param is at most 1000 characters). FROM_UNIXTIME(ts), without
   * a format, is a datetime.
   */
  | 'format';

export interface FunctionModel {
  cost: FunctionCost;
  inDefault: boolean;
}

export const MAX_REPEAT_COUNT = 100;
export const MAX_PAD_LENGTH = 1000;
/** The longest text REPLACE may work on, and the longest LEFT/RIGHT/SUBSTRING that counts as bounded. */
export const MAX_BOUNDED_TEXT = 1000;
/** The longest search or replacement literal of REPLACE. */
export const MAX_REPLACE_LITERAL = 100;
/** The longest format literal of DATE_FORMAT/TIME_FORMAT/FROM_UNIXTIME; `'%Y-%m-%d %H:%i:%s'` has 17. */
export const MAX_FORMAT_LITERAL = 100;

const entries: [string, FunctionCost, boolean][] = [
  ['COUNT', 'aggregate', true],
  ['SUM', 'aggregate', true],
  ['AVG', 'aggregate', true],
  ['MIN', 'aggregate', true],
  ['MAX', 'aggregate', true],
  ['NOW', 'clock', true],
  ['CURRENT_TIMESTAMP', 'clock', true],
  ['CURRENT_DATE', 'clock', true],
  ['CURDATE', 'clock', true],
  ['UTC_TIMESTAMP', 'clock', true],
  ['UTC_DATE', 'clock', true],
  ['DATE_SUB', 'scalar', true],
  ['DATE_ADD', 'scalar', true],
  ['DATE_FORMAT', 'format', true],
  ['DATE', 'scalar', true],
  ['TIME', 'scalar', true],
  ['YEAR', 'scalar', true],
  ['MONTH', 'scalar', true],
  ['DAY', 'scalar', true],
  ['DAYOFMONTH', 'scalar', true],
  ['DAYOFWEEK', 'scalar', true],
  ['HOUR', 'scalar', true],
  ['MINUTE', 'scalar', true],
  ['SECOND', 'scalar', true],
  ['TIMESTAMPDIFF', 'scalar', true],
  ['TIMESTAMPADD', 'scalar', true],
  ['DATEDIFF', 'scalar', true],
  ['UNIX_TIMESTAMP', 'scalar', true],
  ['FROM_UNIXTIME', 'format', true],
  ['IFNULL', 'passthrough', true],
  ['COALESCE', 'passthrough', true],
  ['NULLIF', 'passthrough', true],
  ['IF', 'passthrough', true],
  ['ROUND', 'scalar', true],
  ['FLOOR', 'scalar', true],
  ['CEIL', 'scalar', true],
  ['CEILING', 'scalar', true],
  ['ABS', 'scalar', true],
  ['MOD', 'scalar', true],
  ['CONCAT', 'growing', true],
  ['CONCAT_WS', 'growing', true],
  ['LOWER', 'passthrough', true],
  ['UPPER', 'passthrough', true],
  ['LCASE', 'passthrough', true],
  ['UCASE', 'passthrough', true],
  ['LENGTH', 'scalar', true],
  ['CHAR_LENGTH', 'scalar', true],
  ['SUBSTRING', 'substring', true],
  ['SUBSTR', 'substring', true],
  ['LEFT', 'prefix', true],
  ['RIGHT', 'prefix', true],
  ['TRIM', 'passthrough', true],
  ['LTRIM', 'passthrough', true],
  ['RTRIM', 'passthrough', true],
  ['REPLACE', 'replace', true],
  // Not in the default list; a data source may add them with allowed-functions.
  ['REPEAT', 'repeat', false],
  ['LPAD', 'pad', false],
  ['RPAD', 'pad', false],
  ['SPACE', 'space', false],
  ['INSERT', 'growing', false],
  ['GREATEST', 'passthrough', false],
  ['LEAST', 'passthrough', false],
  ['LOCATE', 'scalar', false],
  ['INSTR', 'scalar', false],
  ['CHARACTER_LENGTH', 'scalar', false],
  ['OCTET_LENGTH', 'scalar', false],
  ['WEEK', 'scalar', false],
  ['WEEKDAY', 'scalar', false],
  ['DAYOFYEAR', 'scalar', false],
  ['QUARTER', 'scalar', false],
  ['DAYNAME', 'scalar', false],
  ['MONTHNAME', 'scalar', false],
  ['LAST_DAY', 'scalar', false],
  ['TIME_FORMAT', 'format', false],
  ['TIMEDIFF', 'scalar', false],
  ['TIME_TO_SEC', 'scalar', false],
  ['SEC_TO_TIME', 'scalar', false],
  ['TO_DAYS', 'scalar', false],
  ['SIGN', 'scalar', false],
  ['TRUNCATE', 'scalar', false],
  // Honours KILL and max_statement_time; only for exercising timeouts on a test data source.
  ['SLEEP', 'scalar', false],
];

export const FUNCTION_CATALOG: ReadonlyMap<string, FunctionModel> = new Map(
  entries.map(([name, cost, inDefault]) => [name, { cost, inDefault }]),
);

/** The default allowlist: aggregates, the clock and date arithmetic, and bounded string functions. */
export const DEFAULT_ALLOWED_FUNCTIONS: readonly string[] = entries
  .filter(([, , inDefault]) => inDefault)
  .map(([name]) => name);

const COST_TEXT: Record<FunctionCost, string> = {
  aggregate: 'aggregate: one value per group',
  clock: 'clock: no data argument',
  scalar: 'number, date or time: bounded output',
  passthrough: 'no larger than its largest argument',
  growing: 'growing: arguments may not be growing results themselves',
  replace:
    `quadratic in its text inside the server: the text must be a literal, a ? or LEFT/RIGHT/SUBSTRING with a literal length ≤ ${MAX_BOUNDED_TEXT}` +
    ` (\`REPLACE(LEFT(error_code, 100), '_', ' ')\`); search and replacement non-empty/short literals (≤ ${MAX_REPLACE_LITERAL} characters); growing when the replacement is longer`,
  prefix: `no larger than its argument; bounded when the length is an integer literal ≤ ${MAX_BOUNDED_TEXT}`,
  substring: `no larger than its argument; bounded when the length is an integer literal ≤ ${MAX_BOUNDED_TEXT}`,
  repeat: `growing; the count must be an integer literal ≤ ${MAX_REPEAT_COUNT}`,
  pad: `the length must be an integer literal ≤ ${MAX_PAD_LENGTH}`,
  space: `the length must be an integer literal ≤ ${MAX_PAD_LENGTH}`,
  format: `as large as its format, which must be a string literal of at most ${MAX_FORMAT_LITERAL} characters or a ? (without a format, FROM_UNIXTIME is a datetime)`,
};

/** docs/query-mysql-functions.md, generated from the catalog; a spec fails when the file is stale. */
export function renderFunctionCatalog(): string {
  const table = (inDefault: boolean) =>
    entries
      .filter(([, , flag]) => flag === inDefault)
      .map(([name, cost]) => `| \`${name}\` | ${COST_TEXT[cost]} |`);
  return [
    '# query_mysql functions',
    '',
    '<!-- Generated from libs/tools/src/mysql/function-catalog.ts by `npm run docs:generate`; do not edit. -->',
    '',
    'The SQL policy of `query_mysql` accepts a function only when the data source allowlists it',
    '(`allowed-functions` in the allowlist file; without it, the default list below) **and** the policy has',
    'a cost model for it: how the size of its output relates to its arguments. MariaDB does not check a',
    "statement's kill flag inside string functions, so nested growth (`REPLACE(REPLACE(?, 'x', ?), 'x', ?)`)",
    'would run past every time limit; a growing function therefore never takes the result of another',
    'growing function, and its size arguments are bounded literals. A function whose output follows one of',
    'its string arguments (a format, a count, a length) is never taken as bounded by itself:',
    '`FROM_UNIXTIME(ts, format)` is as large as its format. An `allowed-functions` entry outside',
    'these two tables stops start-up, naming it. Results are also capped while they are read',
    '(`HARNESS_MYSQL_MAX_RESULT_BYTES`): past the cap the statement is killed.',
    '',
    `## Default list (${DEFAULT_ALLOWED_FUNCTIONS.length} functions)`,
    '',
    '| function | cost model |',
    '| --- | --- |',
    ...table(true),
    '',
    '## Available with `allowed-functions`',
    '',
    '| function | cost model |',
    '| --- | --- |',
    ...table(false),
    '',
  ].join('\n');
}
