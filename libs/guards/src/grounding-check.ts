import type { Draft } from './draft.schema';
import type { VerifiedSnapshot } from './evidence-rules';
import type { VerifiedEvidence } from './verified-evidence';

/**
 * Deterministic grounding check (docs/security-model.md "Grounding check"): code, no LLM, run on every diagnosis draft
 * after the release checks and before SemanticGuard. A misattributed report cites real tool calls, so it
 * passes EvidenceGuard, and a same-model reviewer may approve it; what it cannot do is quote its evidence.
 * Each NORMAL analysis's specific tokens (error codes, identifiers, numbers with units, service, table and
 * product names) must occur in the evidence that analysis cites, and the conclusion's in the evidence the
 * draft cites. Plain words, bare counts, clock times and look-back windows are not checked:
 * they are paraphrased too freely to refuse on.
 */
export const GROUNDING_TOKEN_KINDS = ['ERROR_CODE', 'IDENTIFIER', 'QUANTITY', 'NAME'] as const;
export type GroundingTokenKind = (typeof GROUNDING_TOKEN_KINDS)[number];

export interface SpecificToken {
  kind: GroundingTokenKind;
  /** The token as written in the claim. */
  text: string;
  /** Where it starts in the claim (UTF-16 offset), for the trace. */
  index: number;
  /** Text tokens: what must occur in the evidence (lower case). */
  needle?: string;
  /** Product names: grounded when the evidence holds a word starting with any of these. */
  stems?: string[];
  /** Numeric tokens: each number must occur in the evidence, as written or converted to another unit. */
  numbers?: number[][];
}

const ERRNO =
  'E(?:CONNREFUSED|CONNRESET|CONNABORTED|TIMEDOUT|NOTFOUND|HOSTUNREACH|NETUNREACH|PIPE|NOSPC|ACCES|PERM|MFILE|ADDRINUSE|AI_AGAIN)';
/** Infrastructure and product names a diagnosis blames; matched case-insensitively as whole words. */
const PRODUCTS =
  'MySQL|MariaDB|InnoDB|HikariCP|Redis|Kafka|RabbitMQ|RocketMQ|Nginx|PostgreSQL|Postgres|MongoDB|Elasticsearch|ZooKeeper|etcd|Memcached|HikariPool|Tomcat|Netty|Dubbo|Nacos|Alipay|WeChat|wechatpay|UnionPay|Stripe|PayPal';
/** Names of one product family: any of them in the evidence grounds the others (HikariCP logs as HikariPool). */
const PRODUCT_FAMILIES: readonly string[][] = [
  ['mysql', 'mariadb', 'innodb'],
  ['hikaricp', 'hikaripool', 'hikari'],
  ['postgresql', 'postgres'],
  ['wechat', 'wechatpay'],
];

/** Segments that make a kebab-case word a service or host name even without a digit (order-service). */
const INFRA_SEGMENTS = new Set([
  'service',
  'svc',
  'api',
  'gateway',
  'job',
  'worker',
  'db',
  'mysql',
  'redis',
  'kafka',
  'cache',
  'queue',
  'proxy',
  'server',
  'orders',
]);

type Unit = { dimension: 'time' | 'size' | 'percent' | 'rate'; factor: number };
const UNITS: Record<string, Unit> = {
  ms: { dimension: 'time', factor: 1 },
  millisecond: { dimension: 'time', factor: 1 },
  毫秒: { dimension: 'time', factor: 1 },
  s: { dimension: 'time', factor: 1000 },
  sec: { dimension: 'time', factor: 1000 },
  second: { dimension: 'time', factor: 1000 },
  秒: { dimension: 'time', factor: 1000 },
  min: { dimension: 'time', factor: 60_000 },
  minute: { dimension: 'time', factor: 60_000 },
  分钟: { dimension: 'time', factor: 60_000 },
  h: { dimension: 'time', factor: 3_600_000 },
  hr: { dimension: 'time', factor: 3_600_000 },
  hour: { dimension: 'time', factor: 3_600_000 },
  小时: { dimension: 'time', factor: 3_600_000 },
  b: { dimension: 'size', factor: 1 },
  byte: { dimension: 'size', factor: 1 },
  k: { dimension: 'size', factor: 1024 },
  kb: { dimension: 'size', factor: 1024 },
  kib: { dimension: 'size', factor: 1024 },
  m: { dimension: 'size', factor: 1024 ** 2 },
  mb: { dimension: 'size', factor: 1024 ** 2 },
  mib: { dimension: 'size', factor: 1024 ** 2 },
  g: { dimension: 'size', factor: 1024 ** 3 },
  gb: { dimension: 'size', factor: 1024 ** 3 },
  gib: { dimension: 'size', factor: 1024 ** 3 },
  t: { dimension: 'size', factor: 1024 ** 4 },
  tb: { dimension: 'size', factor: 1024 ** 4 },
  tib: { dimension: 'size', factor: 1024 ** 4 },
  '%': { dimension: 'percent', factor: 1 },
  rps: { dimension: 'rate', factor: 1 },
  qps: { dimension: 'rate', factor: 1 },
  tps: { dimension: 'rate', factor: 1 },
  'requests/s': { dimension: 'rate', factor: 1 },
  'req/s': { dimension: 'rate', factor: 1 },
};
const UNIT_PATTERN = String.raw`ms|milliseconds?|毫秒|secs?|seconds?|s|秒|mins?|minutes?|分钟|hrs?|hours?|h|小时|bytes?|[KMGT]i?B|[KMGT]|B|%|rps|qps|tps|req(?:uest)?s?/s`;
const NUMBER = String.raw`\d+(?:\.\d+)?`;
const QUANTITY = new RegExp(
  String.raw`(?<![\w.\-:/])(${NUMBER})(?:\s*(?:-|–|—|~|to|至|到)\s*(${NUMBER}))?\s*(${UNIT_PATTERN})(?![A-Za-z0-9])`,
  'gu',
);
/**
 * "last 60 minutes", "最近 30 分钟": the search window the agent chose, not a finding; "more than 30000 ms",
 * "超过 30 秒": a bound, which the evidence need not hold literally.
 */
const WINDOW_BEFORE =
  /(?:\b(?:last|past|within|over|previous|next|more than|less than|above|below|under|exceeding|at least|at most|up to)|最近|过去|近|超过|大于|小于|低于|高于|不到|[<>≤≥])\s*$/iu;

function unitOf(raw: string): Unit | undefined {
  const lower = raw.toLowerCase();
  if (UNITS[raw]) return UNITS[raw];
  if (UNITS[lower]) return UNITS[lower];
  const singular = lower.replace(/s$/u, '');
  if (UNITS[singular]) return UNITS[singular];
  if (/^req(?:uest)?s?\/s$/u.test(lower)) return UNITS['requests/s'];
  return undefined;
}

/** The number as written and converted to every other unit of its dimension. */
function equivalents(value: number, unit: Unit): number[] {
  const values = new Set([value]);
  for (const other of Object.values(UNITS))
    if (other.dimension === unit.dimension) values.add((value * unit.factor) / other.factor);
  if (unit.dimension === 'size')
    for (const other of Object.values(UNITS))
      if (other.dimension === 'size' && other.factor > 1) {
        const decimal = 1000 ** Math.round(Math.log(other.factor) / Math.log(1024));
        values.add((value * unit.factor) / decimal);
      }
  return [...values];
}

function push(tokens: SpecificToken[], seen: Set<string>, token: SpecificToken): void {
  const key = token.needle ?? `${token.kind}:${token.text.toLowerCase()}`;
  if (seen.has(key)) return;
  seen.add(key);
  tokens.push(token);
}

/** The specific tokens of one claim, in the order they appear (deduplicated). */
export function specificTokens(text: string): SpecificToken[] {
  const tokens: SpecificToken[] = [];
  const seen = new Set<string>();
  const textToken = (kind: GroundingTokenKind, match: RegExpMatchArray) =>
    push(tokens, seen, { kind, text: match[0], index: match.index ?? 0, needle: match[0].toLowerCase() });
  const numberToken = (kind: GroundingTokenKind, match: RegExpMatchArray, numbers: number[][]) =>
    push(tokens, seen, { kind, text: match[0], index: match.index ?? 0, numbers });

  for (const match of text.matchAll(new RegExp(String.raw`\b(?:${ERRNO})\b`, 'gu')))
    textToken('ERROR_CODE', match);
  for (const match of text.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/gu))
    textToken('ERROR_CODE', match);
  for (const match of text.matchAll(/\bHY\d{3}\b/gu)) textToken('ERROR_CODE', match);
  for (const match of text.matchAll(/\b(?:error|errno|err|code|错误码?)\s*[:#=]?\s*(\d{1,5})(?![\w.])/giu))
    numberToken('ERROR_CODE', match, [[Number(match[1])]]);
  for (const match of text.matchAll(/(?<![\w.\-:/])(?:HTTP\s*)?([45]\d{2})(?![\w.%-])/giu)) {
    const after = text.slice((match.index ?? 0) + match[0].length);
    if (new RegExp(String.raw`^\s*(?:${UNIT_PATTERN})(?![A-Za-z0-9])`, 'u').test(after)) continue;
    numberToken('ERROR_CODE', match, [[Number(match[1])]]);
  }

  for (const match of text.matchAll(new RegExp(String.raw`\b(?:${PRODUCTS})\b`, 'giu')))
    push(tokens, seen, {
      kind: 'NAME',
      text: match[0],
      index: match.index ?? 0,
      needle: match[0].toLowerCase(),
      stems: PRODUCT_FAMILIES.find((family) => family.includes(match[0].toLowerCase())) ?? [
        match[0].toLowerCase(),
      ],
    });
  for (const match of text.matchAll(/\bv?\d+\.\d+\.\d+(?:[-+][\w.]+)?\b/gu))
    push(tokens, seen, {
      kind: 'IDENTIFIER',
      text: match[0],
      index: match.index ?? 0,
      needle: match[0].toLowerCase().replace(/^v/u, ''),
    });
  for (const match of text.matchAll(/\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\b/gu)) {
    const segments = match[0].toLowerCase().split('-');
    if (/\d/u.test(match[0]) || segments.some((segment) => INFRA_SEGMENTS.has(segment)))
      textToken('IDENTIFIER', match);
  }
  for (const match of text.matchAll(/\b[A-Za-z_][\w-]*[A-Za-z0-9](?:\.[A-Za-z_][\w-]*[A-Za-z0-9])+\b/gu))
    textToken('IDENTIFIER', match);
  for (const match of text.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/gu)) textToken('IDENTIFIER', match);
  for (const match of text.matchAll(/\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/gu))
    textToken('IDENTIFIER', match);

  for (const match of text.matchAll(/\bport\s+(\d{2,5})\b/giu))
    numberToken('QUANTITY', match, [[Number(match[1])]]);
  for (const match of text.matchAll(QUANTITY)) {
    const before = text.slice(Math.max(0, (match.index ?? 0) - 16), match.index ?? 0);
    if (WINDOW_BEFORE.test(before)) continue;
    const unit = unitOf(match[3]);
    if (!unit) continue;
    const numbers = [match[1], match[2]]
      .filter((value): value is string => value !== undefined)
      .map((value) => equivalents(Number(value), unit));
    numberToken('QUANTITY', match, numbers);
  }
  return tokens;
}

/** What a claim's tokens are looked up in: the evidence's text, and its numbers outside dates and clock times. */
export interface EvidenceIndex {
  text: string;
  numbers: number[];
}

const DATE_TIME =
  /\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?|\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b/gu;

export function evidenceIndex(texts: readonly string[]): EvidenceIndex {
  const text = texts.join('\n').toLowerCase();
  const numbers = [...text.replace(DATE_TIME, ' ').matchAll(/(?<![\d.])\d+(?:\.\d+)?/gu)].map((m) =>
    Number(m[0]),
  );
  return { text, numbers: [...new Set(numbers)] };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
const sameNumber = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));

export function isGrounded(token: SpecificToken, evidence: EvidenceIndex): boolean {
  if (token.needle !== undefined) {
    const holds = (needle: string) =>
      new RegExp(`(?<![a-z0-9])${escapeRegExp(needle)}(?![a-z0-9])`, 'u').test(evidence.text);
    if (holds(token.needle) || holds(`v${token.needle}`)) return true;
    if (
      token.stems?.some((stem) => new RegExp(`(?<![a-z0-9])${escapeRegExp(stem)}`, 'u').test(evidence.text))
    )
      return true;
    // table.column or Class.method: the parts may sit apart (a column list, a scope's SQL).
    const parts = token.needle.split('.');
    return parts.length > 1 && parts.every((part) => /^[a-z_]/u.test(part)) && parts.every(holds);
  }
  return (token.numbers ?? []).every((candidates) =>
    candidates.some((candidate) => evidence.numbers.some((number) => sameNumber(number, candidate))),
  );
}

/** The tokens of `text` that `evidence` does not hold. */
export function ungroundedTokens(text: string, evidence: EvidenceIndex): SpecificToken[] {
  return specificTokens(text).filter((token) => !isGrounded(token, evidence));
}

function stringsOf(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') into.push(String(value));
  else if (Array.isArray(value)) value.forEach((item) => stringsOf(item, into));
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      stringsOf(item, into);
    }
  return into;
}

/** Every string of the given verified evidence: source, scope, values (keys included: column names). */
export function evidenceTexts(evidence: readonly VerifiedEvidence[]): string[] {
  return evidence.flatMap((item) => stringsOf([item.source, item.scope, item.values], []));
}

export interface UngroundedClaim {
  /** `analysis <id>` or `conclusion`. */
  claim: string;
  tokens: SpecificToken[];
}

export type GroundingCheck = { ok: true } | { ok: false; ungrounded: UngroundedClaim[] };

/** The grounding check of a draft that passed EvidenceGuard, against the evidence each claim cites. */
export function checkGrounding(draft: Draft, snapshot: VerifiedSnapshot): GroundingCheck {
  const ungrounded: UngroundedClaim[] = [];
  for (const analysis of snapshot.byAnalysis) {
    if (analysis.kind !== 'NORMAL') continue;
    const tokens = ungroundedTokens(
      analysis.analysis_text,
      evidenceIndex(evidenceTexts(analysis.verified_evidence)),
    );
    if (tokens.length > 0) ungrounded.push({ claim: `analysis ${analysis.analysis_id}`, tokens });
  }
  if (draft.conclusion) {
    // The conclusion sums up the whole draft: it may name what any cited evidence holds.
    const evidence = snapshot.byAnalysis.flatMap((item) => item.verified_evidence);
    const tokens = ungroundedTokens(draft.conclusion.text, evidenceIndex(evidenceTexts(evidence)));
    if (tokens.length > 0) ungrounded.push({ claim: 'conclusion', tokens });
  }
  return ungrounded.length > 0 ? { ok: false, ungrounded } : { ok: true };
}

/** Tokens named one by one in the trace; the rest are counted. */
const TRACED_TOKENS = 10;

/**
 * A token as the trace may show it. Personal data and secrets are long runs of digits (order, phone, card
 * and account numbers) or of letters and digits with no word in them (keys, tokens), so a token is shown
 * as written only when it has at most four digits and every part of it (split at `-`, `_`, `.`, `/`) is
 * at most four camelCase words of at most 12 characters; anything else only by its shape (`ORD-20261205-004217` →
 * `AAA-99999999-999999`). Product names come from a fixed list and are always shown. Known-safe by
 * construction rather than by recognising what is sensitive.
 */
/** A word, not a key: at most this long, and at most this many camelCase words in one part. */
const MAX_SHOWN_WORD = 12;
const MAX_SHOWN_WORDS_PER_PART = 4;

/** `HikariPool` (Hikari, Pool) and `getUserById` (4 words) are names; `qWeRtYuIoPaSdFgHjK` is not. */
function nameLike(part: string): boolean {
  const words = part.replace(/([a-z0-9])([A-Z])/gu, '$1 $2').split(' ');
  return words.length <= MAX_SHOWN_WORDS_PER_PART && words.every((word) => word.length <= MAX_SHOWN_WORD);
}

export function traceableToken(token: SpecificToken): string {
  const digits = token.text.replace(/\D/gu, '').length;
  const wordLike = token.text
    .split(/[-_./:]+/u)
    .filter(Boolean)
    .every(nameLike);
  if (token.kind === 'NAME' || (digits <= 4 && wordLike && token.text.length <= 48)) return token.text;
  return token.text
    .slice(0, 48)
    .replace(/\p{Lu}/gu, 'A')
    .replace(/\p{Ll}/gu, 'a')
    .replace(/\d/gu, '9')
    .replace(/[^Aa9\-_.:/ ]/gu, '?');
}

/**
 * Bounded timeline details of a refusal, never the draft's text: how many claims, which kinds of token,
 * and which tokens failed where (`analysis a1@52 ERROR_CODE ERROR 2003`: claim, offset, kind, token or
 * its shape), so an operator can see why a report was held back.
 */
export function groundingDetails(ungrounded: readonly UngroundedClaim[]): Record<string, string | number> {
  const kinds = new Set(ungrounded.flatMap((claim) => claim.tokens.map((token) => token.kind)));
  const located = ungrounded.flatMap((claim) =>
    [...claim.tokens]
      .sort((a, b) => a.index - b.index)
      .map((token) => `${claim.claim}@${token.index} ${token.kind} ${traceableToken(token)}`),
  );
  const more = located.length - TRACED_TOKENS;
  return {
    ungrounded_claims: ungrounded.length,
    ungrounded_tokens: located.length,
    kinds: GROUNDING_TOKEN_KINDS.filter((kind) => kinds.has(kind)).join(','),
    ungrounded: [...located.slice(0, TRACED_TOKENS), ...(more > 0 ? [`+${more} more`] : [])].join('; '),
  };
}
