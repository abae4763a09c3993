import { createRequire } from 'node:module';
import type { SyntaxNode } from '@lezer/common';
import type { LRParser } from '@lezer/lr';
import type { PromqlRejectionCode } from './query-metrics.codes';

/*
 * The package declares "type": "module" for its typings but ships a CommonJS build, which is what this
 * CommonJS service loads; typed through @lezer/lr's CommonJS declarations so the node types agree.
 */
const { parser } = createRequire(__filename)('@prometheus-io/lezer-promql') as { parser: LRParser };

/** Strict: a syntax error throws instead of being repaired into an error node. */
const strictParser = parser.configure({ strict: true });

export const MAX_PROMQL_LENGTH = 2000;

/** One allowlist entry: a metric name and the equality matchers every selector of it must carry. */
export interface AllowedSelector {
  metric: string;
  /** label -> exact value the query's selector must match with `=` (a tenant, a job). */
  requiredMatchers: ReadonlyMap<string, string>;
}

export interface PromqlLimits {
  /** No range, offset or subquery may reach further back than this. */
  maxLookbackSeconds: number;
  /** The finest subquery resolution allowed. */
  minStepSeconds: number;
}

export type PromqlVerdict =
  { allowed: true; metrics: string[] } | { allowed: false; code: PromqlRejectionCode; message: string };

interface Matcher {
  label: string;
  op: string;
  value: string;
}

class PolicyError extends Error {
  constructor(
    readonly code: PromqlRejectionCode,
    message: string,
  ) {
    super(message);
  }
}

const DURATION_UNITS: Record<string, number> = {
  ms: 0.001,
  s: 1,
  m: 60,
  h: 3600,
  d: 86_400,
  w: 604_800,
  y: 31_536_000,
};

/** A PromQL duration literal ("5m", "1h30m", "500ms", or plain seconds) in seconds; null if it is none. */
export function durationSeconds(text: string): number | null {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  if (!/^(\d+(ms|s|m|h|d|w|y))+$/.test(text)) return null;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g))
    total += Number(amount) * DURATION_UNITS[unit];
  return total;
}

/** A PromQL string literal's value: double- or single-quoted with Go escapes, or a raw backtick string. */
function stringValue(literal: string): string {
  const quote = literal[0];
  const body = literal.slice(1, -1);
  if (quote === '`') return body;
  const asJson = quote === "'" ? body.replace(/\\'/g, "'").replace(/(^|[^\\])"/g, '$1\\"') : body;
  try {
    return JSON.parse(`"${asJson}"`) as string;
  } catch {
    throw new PolicyError('PROMQL_INVALID', 'A string literal in the PromQL uses an unsupported escape.');
  }
}

const text = (source: string, node: SyntaxNode) => source.slice(node.from, node.to);

/** The node and everything under it, in document order. */
function descendants(node: SyntaxNode): SyntaxNode[] {
  const nodes = [node];
  for (let child = node.firstChild; child; child = child.nextSibling) nodes.push(...descendants(child));
  return nodes;
}

function childrenOf(node: SyntaxNode): SyntaxNode[] {
  const children: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) children.push(child);
  return children;
}

function matcherOf(source: string, node: SyntaxNode): Matcher {
  const name = node.getChild('LabelName') ?? node.getChild('QuotedLabelName');
  const op = node.getChild('MatchOp');
  const value = node.getChild('StringLiteral');
  if (!name || !op || !value) throw new PolicyError('PROMQL_INVALID', 'A label matcher is incomplete.');
  const label =
    name.name === 'QuotedLabelName' ? stringValue(text(source, name.firstChild ?? name)) : text(source, name);
  return { label, op: text(source, op), value: stringValue(text(source, value)) };
}

/** The metric name and label matchers of one vector selector, however the name is spelled. */
function readSelector(source: string, selector: SyntaxNode): { names: string[]; matchers: Matcher[] } {
  const names: string[] = [];
  const matchers: Matcher[] = [];
  const identifier = selector.getChild('Identifier');
  if (identifier) names.push(text(source, identifier));
  const list = selector.getChild('LabelMatchers');
  for (const item of list ? childrenOf(list) : []) {
    if (item.name === 'QuotedLabelName') {
      // `{"metric.name", …}`: the quoted first item is the metric name itself.
      names.push(stringValue(text(source, item.getChild('StringLiteral') ?? item)));
    } else if (item.name === 'UnquotedLabelMatcher' || item.name === 'QuotedLabelMatcher') {
      const matcher = matcherOf(source, item);
      if (matcher.label === '__name__') {
        if (matcher.op !== '=')
          throw new PolicyError(
            'METRIC_NOT_ALLOWED',
            'Name each metric exactly; a __name__ pattern could read any metric.',
          );
        names.push(matcher.value);
      } else matchers.push(matcher);
    }
  }
  return { names, matchers };
}

function checkSelector(source: string, selector: SyntaxNode, allowlist: readonly AllowedSelector[]): string {
  const { names, matchers } = readSelector(source, selector);
  if (names.length === 0)
    throw new PolicyError(
      'METRIC_NOT_ALLOWED',
      'Every selector must name one allowlisted metric; a selector by labels alone could read any metric.',
    );
  if (new Set(names).size > 1)
    throw new PolicyError('PROMQL_INVALID', 'A selector names its metric more than once.');
  const metric = names[0];
  const entries = allowlist.filter((entry) => entry.metric === metric);
  if (entries.length === 0)
    throw new PolicyError(
      'METRIC_NOT_ALLOWED',
      `Metric ${metric.slice(0, 100)} is not on this data source's allowlist.`,
    );
  const satisfies = (entry: AllowedSelector) =>
    [...entry.requiredMatchers].every(([label, value]) =>
      matchers.some((matcher) => matcher.label === label && matcher.op === '=' && matcher.value === value),
    );
  if (!entries.some(satisfies)) {
    const required = entries
      .map((entry) =>
        [...entry.requiredMatchers].map(([label, value]) => `${label}=${JSON.stringify(value)}`).join(', '),
      )
      .join(' or ');
    throw new PolicyError('METRIC_NOT_ALLOWED', `Metric ${metric} may only be read with ${required}.`);
  }
  return metric;
}

/** A range, offset or subquery duration: a plain literal within the lookback bound. */
function checkDuration(source: string, node: SyntaxNode, limits: PromqlLimits, what: string): number {
  const inner = descendants(node).slice(1);
  const literals = inner.filter(
    (found) =>
      found.name === 'NumberDurationLiteralInDurationContext' || found.name === 'NumberDurationLiteral',
  );
  const operators = inner.filter(
    (found) => !literals.includes(found) && found.name !== 'UnaryOp' && found.name !== 'OffsetDurationExpr',
  ).length;
  const seconds =
    literals.length === 1 && operators === 0 ? durationSeconds(text(source, literals[0])) : null;
  if (seconds === null)
    throw new PolicyError('PROMQL_NOT_ALLOWED', `Write each ${what} as a plain duration such as 5m.`);
  if (seconds > limits.maxLookbackSeconds)
    throw new PolicyError(
      'PROMQL_NOT_ALLOWED',
      `A ${what} of ${text(source, node)} reaches further back than the allowed ${limits.maxLookbackSeconds / 60} minutes.`,
    );
  return seconds;
}

/**
 * The PromQL policy of query_metrics: the query must parse (Prometheus' own Lezer grammar), every
 * vector selector must name one allowlisted metric exactly (with the matchers its entry requires), no
 * range, offset or subquery may reach past the lookback bound, subqueries may not be finer than the
 * minimum step, and the `@` modifier is refused (the time window is the tool's, not the query's).
 */
export function checkPromql(
  query: string,
  allowlist: readonly AllowedSelector[],
  limits: PromqlLimits,
): PromqlVerdict {
  if (query.length > MAX_PROMQL_LENGTH)
    return {
      allowed: false,
      code: 'PROMQL_INVALID',
      message: `The PromQL is longer than ${MAX_PROMQL_LENGTH} characters.`,
    };
  let root: SyntaxNode;
  try {
    root = strictParser.parse(query).topNode;
  } catch (error) {
    const at = /at (\d+)/.exec((error as Error).message)?.[1];
    return {
      allowed: false,
      code: 'PROMQL_INVALID',
      message: `The PromQL does not parse${at ? ` (near character ${at})` : ''}; check brackets, quotes and function names.`,
    };
  }
  try {
    const metrics = new Set<string>();
    const nodes = descendants(root);
    if (!nodes.some((node) => node.name === 'VectorSelector'))
      throw new PolicyError('METRIC_NOT_ALLOWED', 'The query reads no metric; name an allowlisted metric.');
    for (const node of nodes) {
      switch (node.name) {
        case 'VectorSelector':
          metrics.add(checkSelector(query, node, allowlist));
          break;
        case 'MatrixSelector':
          checkDuration(query, node.getChild('DurationExpr')!, limits, 'range');
          break;
        case 'OffsetExpr':
          checkDuration(query, node.getChild('OffsetDurationExpr')!, limits, 'offset');
          break;
        case 'SubqueryExpr': {
          const [range, step] = node.getChildren('DurationExpr');
          checkDuration(query, range, limits, 'subquery range');
          if (!step)
            throw new PolicyError(
              'PROMQL_NOT_ALLOWED',
              'Give every subquery an explicit step, e.g. [30m:1m].',
            );
          if (checkDuration(query, step, limits, 'subquery step') < limits.minStepSeconds)
            throw new PolicyError(
              'PROMQL_NOT_ALLOWED',
              `A subquery step may not be finer than ${limits.minStepSeconds} seconds.`,
            );
          break;
        }
        case 'At':
          throw new PolicyError(
            'PROMQL_NOT_ALLOWED',
            'The @ modifier is not allowed; the time window comes from lookback_minutes.',
          );
      }
    }
    return { allowed: true, metrics: [...metrics] };
  } catch (error) {
    if (error instanceof PolicyError) return { allowed: false, code: error.code, message: error.message };
    throw error;
  }
}

/**
 * One allowlist entry as the configuration writes it: a metric name, or a selector such as
 * `http_requests_total{job="order-service"}` whose `=` matchers every query of it must repeat.
 */
export function parseAllowedSelector(entry: string): AllowedSelector {
  let root: SyntaxNode;
  try {
    root = strictParser.parse(entry).topNode;
  } catch {
    throw new Error('must be a metric name or a selector like name{label="value"}');
  }
  const selector = root.firstChild;
  if (!selector || selector.name !== 'VectorSelector' || selector.nextSibling)
    throw new Error('must be a metric name or a selector like name{label="value"}');
  let read: { names: string[]; matchers: Matcher[] };
  try {
    read = readSelector(entry, selector);
  } catch (error) {
    throw new Error(error instanceof PolicyError ? 'must name its metric exactly' : String(error));
  }
  if (read.names.length !== 1) throw new Error('must name exactly one metric');
  if (read.matchers.some((matcher) => matcher.op !== '='))
    throw new Error('may only carry exact matchers (label="value")');
  return {
    metric: read.names[0],
    requiredMatchers: new Map(read.matchers.map((matcher) => [matcher.label, matcher.value])),
  };
}
