import { FAILURE_CODES, FailureCode, Reference } from '@app/contracts';
import type { Expectation } from './scenario';

/** What the runner saw of one chat turn over HTTP: the SSE outcome and content, plus the run's trace. */
export interface TurnObservation {
  /** `done.outcome`, or null when the stream ended without one. */
  outcome: string | null;
  contentType: string | null;
  payload: unknown;
  failureCode: string | null;
  /** The run's `fallback_reason` and `error_code` from its trace (null when none or unread). */
  fallbackReason: string | null;
  errorCode: string | null;
  latencyMs: number;
  toolCalls: { tool_name: string; status: string; evidence_status: string | null }[];
  tokens: { input: number; output: number; total: number };
}

/**
 * pass / fail: the answer was scored. not_scored: the run ended in a provider or transport failure
 * (rate limit, timeout, unreachable model, a lost stream) — no answer to judge, so neither right nor wrong.
 */
export type ScoreStatus = 'pass' | 'fail' | 'not_scored';

export interface ScenarioScore {
  status: ScoreStatus;
  passed: boolean;
  /** A report with a conclusion was released (what precision is computed over). */
  released_conclusion: boolean;
  checks: {
    outcome_correct: boolean;
    root_cause_hit: boolean;
    forbidden_absent: boolean;
    citations_valid: boolean;
  };
  /** Why each failed check failed, for the report. */
  problems: string[];
  metrics: {
    tool_calls: number;
    tool_errors: number;
    input_tokens: number;
    output_tokens: number;
    total_tokens: number;
    latency_ms: number;
  };
}

interface ReportShape {
  conclusion: { text: string; based_on_analysis_ids: string[] } | null;
  analysis: { analysis_id: string; kind: string; text: string; reference_ids: number[] }[];
  action_plan: { action: string; based_on_analysis_ids: string[] }[];
  recommendations: { text: string; based_on_analysis_ids: string[] }[];
  references: Pick<Reference, 'reference_id' | 'source_type' | 'source' | 'demo'>[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The released report, or null when the payload does not have the report's shape. */
export function reportOf(turn: TurnObservation): ReportShape | null {
  if (turn.contentType !== 'DIAGNOSIS_REPORT' || !isObject(turn.payload)) return null;
  const report = turn.payload;
  const arrays = ['analysis', 'action_plan', 'recommendations', 'references'] as const;
  if (!arrays.every((key) => Array.isArray(report[key]))) return null;
  if (
    report.conclusion !== null &&
    !(isObject(report.conclusion) && typeof report.conclusion.text === 'string')
  )
    return null;
  return report as unknown as ReportShape;
}

/** Claims a report makes: conclusion, NORMAL analysis, actions, recommendations (negative observations say what was not found). */
export function claimsOf(report: ReportShape): string[] {
  return [
    report.conclusion?.text ?? '',
    ...report.analysis.filter((item) => item.kind === 'NORMAL').map((item) => item.text),
    ...report.action_plan.map((item) => item.action),
    ...report.recommendations.map((item) => item.text),
  ].filter(Boolean);
}

/** Where one claim ends and the next begins: punctuation (English and Chinese) and contrasting conjunctions. */
const CLAUSE_BREAK =
  /[,;:!?()[\]\n，；：！？、（）。…]|\.(?=\s|$)|\s(?:but|while|whereas|although|though|yet|because|due to|caused by|as a result of|so|hence|therefore|which)\s|但是|但|然而|不过|而是|而非|因为|由于|导致|所以|因此/giu;
/** A negation before X in the same clause: "not X", "no X", "排除 X", "不是 X", "rather than X". */
const NEGATION_BEFORE =
  /\b(?:not|no|never|none|neither|nor|without|rather than|instead of|ruled out|excluding|except|unrelated to|nothing to do with|isn'?t|aren'?t|wasn'?t|weren'?t|doesn'?t|didn'?t)\b|n't\b|排除|不是|并非|并不是|而非|没有|并无|不涉及/iu;
/** A negation after X in the same clause: "X was ruled out", "X is healthy", "X 已排除", "X 正常". */
const NEGATION_AFTER =
  /\b(?:ruled out|excluded|eliminated|not (?:the |a )?(?:root )?cause|not involved|not responsible|unrelated|irrelevant|(?:is|was|are|were|looks?|looked|remains?|remained|stays?|stayed) (?:healthy|normal|fine|ok|unaffected))\b|排除|不是(?:根因|原因|问题)|无关|正常|无异常|没有问题|没问题|未见异常/iu;

interface Clause {
  text: string;
  start: number;
}

function clausesOf(text: string): Clause[] {
  const clauses: Clause[] = [];
  let start = 0;
  for (const match of text.matchAll(CLAUSE_BREAK)) {
    clauses.push({ text: text.slice(start, match.index), start });
    start = (match.index ?? 0) + match[0].length;
  }
  clauses.push({ text: text.slice(start), start });
  return clauses;
}

/** Whether the mention at [index, index+length) of `text` is ruled out by its own clause. */
function isNegated(text: string, index: number, length: number): boolean {
  const clause = clausesOf(text).find(
    (candidate) => index >= candidate.start && index < candidate.start + candidate.text.length,
  );
  if (!clause) return false;
  const before = clause.text.slice(0, index - clause.start);
  const after = clause.text.slice(index - clause.start + length);
  return NEGATION_BEFORE.test(before) || NEGATION_AFTER.test(after);
}

/** The mentions of `pattern` in `text` that claim it (negated, ruled-out mentions left out). */
export function affirmedMentions(pattern: string | RegExp, text: string): string[] {
  const regex = new RegExp(typeof pattern === 'string' ? pattern : pattern.source, 'giu');
  return [...text.matchAll(regex)]
    .filter((match) => match[0].length > 0 && !isNegated(text, match.index ?? 0, match[0].length))
    .map((match) => match[0]);
}

/** Whether `text` claims `pattern`: at least one mention of it is not ruled out. */
export function claims(pattern: string, text: string): boolean {
  return affirmedMentions(pattern, text).length > 0;
}

/**
 * Families of root causes (English and Chinese), most specific first: a hedged conclusion names several.
 * Symptoms (timeouts, failures, 5xx answers) are not causes and are not listed.
 */
export const CAUSE_FAMILIES: readonly { family: string; pattern: RegExp }[] = [
  { family: 'deadlock', pattern: /deadlock|死锁/ },
  { family: 'lock-wait', pattern: /lock[- ]wait|row locks?|锁等待|行锁|锁冲突/ },
  { family: 'slow-query', pattern: /slow (?:sql|quer(?:y|ies))|full table scan|慢查询|慢 ?sql|全表扫描/ },
  { family: 'connection-pool', pattern: /connection pool|pool (?:was |is )?exhaust\w*|hikari\w*|连接池/ },
  { family: 'disk', pattern: /disk|no space left|storage (?:is )?full|磁盘|空间不足/ },
  { family: 'cache-memory', pattern: /redis|maxmemory|\boom\b|out of memory|缓存|内存不足|内存溢出/ },
  { family: 'certificate', pattern: /certificate|\btls\b|\bssl\b|证书/ },
  { family: 'dns', pattern: /\bdns\b|name resolution|域名解析/ },
  { family: 'rate-limit', pattern: /\b429\b|rate[- ]?limit\w*|throttl\w*|too many requests|限流|频率限制/ },
  { family: 'deploy-config', pattern: /deploy\w*|release v?\d|config\w*|rollout|发布|上线|配置/ },
  {
    family: 'network',
    pattern: /econnrefused|connection refused|refuses connections|network|partition|网络|丢包/,
  },
  {
    family: 'database-down',
    pattern: /database (?:is |was )?(?:down|unavailable|unreachable)|数据库(?:宕机|不可用)/,
  },
  { family: 'downstream', pattern: /downstream|dependency|inventory|下游|依赖|库存服务/ },
  { family: 'payment-channel', pattern: /channel|provider|acquirer|gateway|渠道|通道|网关/ },
  { family: 'decline', pattern: /declin\w*|insufficient|余额不足|拒付|拒绝支付/ },
  { family: 'cpu-gc', pattern: /\bcpu\b|\bgc\b|garbage collect\w*|memory leak|内存泄漏/ },
  { family: 'message-queue', pattern: /kafka|rabbitmq|rocketmq|message queue|消息队列|\bmq\b/ },
  { family: 'code-bug', pattern: /\bbug\b|null ?pointer|regression|代码缺陷|空指针/ },
  { family: 'clock', pattern: /clock (?:skew|drift)|ntp|时钟/ },
];

const HEDGE =
  /\b(?:possibl[ey]|possibilit\w*|probabl[ey]|might|may|maybe|could|perhaps|either|one of|several|multiple|various|candidates?|or)\b|可能|或者|或是|或|之一|也许|大概|几种|多个|多种|以下原因/iu;

/** The cause families a text claims (negated mentions left out; each span counts for one family). */
export function causeFamiliesOf(text: string): string[] {
  let rest = text;
  const families: string[] = [];
  for (const { family, pattern } of CAUSE_FAMILIES) {
    const regex = new RegExp(pattern.source, 'giu');
    let claimed = false;
    rest = rest.replace(regex, (mention: string, ...args: unknown[]) => {
      const index = args.find((arg): arg is number => typeof arg === 'number') ?? 0;
      if (!isNegated(rest, index, mention.length)) claimed = true;
      return ' '.repeat(mention.length);
    });
    if (claimed) families.push(family);
  }
  return families;
}

/**
 * A conclusion commits to one primary cause: naming three cause families, or two with a hedge ("may",
 * "or", "可能", "之一"), is a list of guesses, whatever it also gets right.
 */
export function hedgedCauses(conclusion: string): string[] | null {
  const families = causeFamiliesOf(conclusion);
  if (families.length >= 3 || (families.length === 2 && HEDGE.test(conclusion))) return families;
  return null;
}

/**
 * Every failure code of the wire contract, decided: true when it means the provider or the transport
 * failed (no answer to judge, not scored), false when it is the service's own answer to the run (scored).
 * A new code in libs/contracts does not compile here until it is decided.
 */
const PROVIDER_FAILURE: Record<FailureCode, boolean> = {
  ROUTING_UNAVAILABLE: true,
  MODEL_UNAVAILABLE: true,
  // The provider's failure classes (docs/provider-failures.md).
  MODEL_RATE_LIMITED: true,
  MODEL_AUTH_FAILED: true,
  MODEL_QUOTA_EXHAUSTED: true,
  MODEL_NOT_FOUND: true,
  MODEL_ENDPOINT_INVALID: true,
  MODEL_TLS_FAILED: true,
  MODEL_CONTENT_FILTERED: true,
  MODEL_CONTEXT_TOO_LONG: true,
  MODEL_REQUEST_REJECTED: true,
  MODEL_BAD_RESPONSE: true,
  BUDGET_EXHAUSTED: false,
  RUN_TIMEOUT: true,
  KNOWLEDGE_UNAVAILABLE: false,
  // The service's database did not record the run's start: no answer to judge.
  RUN_NOT_RECORDED: true,
  INTERNAL_ERROR: false,
};

const isFailureCode = (code: string | null): code is FailureCode =>
  (FAILURE_CODES as readonly string[]).includes(code ?? '');

/**
 * Why a turn has no answer to score: the stream was lost, the provider failed (rate limit, timeout,
 * unreachable, 5xx), or a guard's model call failed so the run fell back. A model's own unusable output
 * (INVALID_OUTPUT) is scored: that is the model's answer.
 */
export function providerFailureOf(turn: TurnObservation): string | null {
  if (turn.errorCode?.includes('INVALID_OUTPUT') || turn.fallbackReason?.includes('INVALID_OUTPUT'))
    return null;
  if (turn.outcome === null)
    return `the stream ended without an outcome${turn.failureCode ? ` (${turn.failureCode})` : ''}`;
  if (turn.failureCode?.startsWith('HTTP_')) return `the chat request answered ${turn.failureCode}`;
  const fromProvider = isFailureCode(turn.failureCode) && PROVIDER_FAILURE[turn.failureCode];
  if (turn.outcome === 'FAILED' && turn.failureCode && fromProvider)
    return `provider failure ${turn.failureCode}${turn.errorCode ? ` (${turn.errorCode})` : ''}`;
  const reason = turn.fallbackReason ?? '';
  if (
    /^(?:REPAIR|SEMANTIC)_/.test(reason) &&
    !['SEMANTIC_UNSUPPORTED', 'SEMANTIC_INPUT_TOO_LARGE'].includes(reason)
  )
    return `a guard's model call failed (${reason})`;
  return null;
}

function outcomeCheck(expect: Expectation, turn: TurnObservation, report: ReportShape | null): string | null {
  if (turn.outcome === 'FAILED' || turn.outcome === null)
    return `run did not finish with an answer (outcome ${turn.outcome ?? 'none'}, failure ${turn.failureCode ?? 'none'})`;
  if (expect.outcome === 'report') {
    if (!report) return `expected a released report, got ${turn.contentType ?? 'no content'}`;
    if (!report.conclusion) return 'expected a conclusion, the report has none';
    return turn.outcome === 'SUCCESS' ? null : `expected outcome SUCCESS, got ${turn.outcome}`;
  }
  if (turn.contentType === 'FALLBACK') return null;
  if (report && report.conclusion === null) return null;
  return `expected no conclusion (null or fallback), got ${turn.contentType ?? 'no content'} with a conclusion`;
}

function rootCauseCheck(expect: Expectation, report: ReportShape | null): string | null {
  if (expect.outcome === 'no_conclusion') {
    return report?.conclusion ? 'a root cause was claimed where the evidence supports none' : null;
  }
  const conclusion = report?.conclusion?.text ?? '';
  const missing = expect.root_cause.filter((marker) => !claims(marker, conclusion));
  if (missing.length > 0)
    return `conclusion misses root-cause marker(s) ${missing.map((m) => `/${m}/`).join(', ')}`;
  const hedged = hedgedCauses(conclusion);
  return hedged
    ? `the conclusion hedges between causes (${hedged.join(', ')}) instead of committing to one`
    : null;
}

function forbiddenCheck(expect: Expectation, report: ReportShape | null): string | null {
  if (!report) return null;
  const claimTexts = claimsOf(report);
  const found = expect.forbidden.filter((pattern) => claimTexts.some((claim) => claims(pattern, claim)));
  return found.length > 0 ? `forbidden claim(s) ${found.map((m) => `/${m}/`).join(', ')} present` : null;
}

function citationCheck(
  expect: Expectation,
  turn: TurnObservation,
  report: ReportShape | null,
): string | null {
  if (turn.contentType === 'FALLBACK') return null;
  if (!report) return 'no report to check citations of';
  const referenceIds = report.references.map((reference) => reference.reference_id);
  if (new Set(referenceIds).size !== referenceIds.length) return 'duplicate reference ids';
  const ready = turn.toolCalls.filter((call) => call.status === 'READY').length;
  if (report.references.length > ready)
    return `${report.references.length} references but only ${ready} verified tool calls in the run`;
  const analysisIds = new Set(report.analysis.map((item) => item.analysis_id));
  for (const item of report.analysis) {
    if (item.reference_ids.length === 0) return `analysis ${item.analysis_id} cites nothing`;
    const dangling = item.reference_ids.filter((id) => !referenceIds.includes(id));
    if (dangling.length > 0)
      return `analysis ${item.analysis_id} cites unknown reference(s) ${dangling.join(', ')}`;
  }
  const basedOn = [
    ...(report.conclusion?.based_on_analysis_ids ?? []),
    ...report.action_plan.flatMap((item) => item.based_on_analysis_ids),
    ...report.recommendations.flatMap((item) => item.based_on_analysis_ids),
  ];
  const unknown = basedOn.filter((id) => !analysisIds.has(id));
  if (unknown.length > 0) return `claims based on unknown analysis id(s) ${[...new Set(unknown)].join(', ')}`;
  if (report.conclusion && report.conclusion.based_on_analysis_ids.length === 0)
    return 'the conclusion is based on no analysis';
  const cited = new Set(
    report.analysis.filter((item) => item.kind === 'NORMAL').flatMap((item) => item.reference_ids),
  );
  const citedReferences = report.references.filter((reference) => cited.has(reference.reference_id));
  // By the contract's typed field, never the display text; a reference without it counts as demo data.
  const demo = report.references.filter((reference) => reference.demo !== false);
  if (demo.length > 0) return 'evidence is demo data (the MOCK log source), not from a real source';
  const missing = expect.evidence.filter(
    (type) => !citedReferences.some((reference) => reference.source_type === type),
  );
  return missing.length > 0 ? `no ${missing.join(', ')} evidence cited by the analysis` : null;
}

/**
 * Scores the final turn of a scenario run against its expectation; `turns` (all turns, in order) give
 * the totals of tool calls, tokens and latency. A provider or transport failure in any turn makes the
 * run not scored. Pure: the same observation always scores the same.
 */
export function scoreScenario(expect: Expectation, turns: TurnObservation[]): ScenarioScore {
  const final = turns.at(-1);
  const metrics = {
    tool_calls: turns.reduce((sum, turn) => sum + turn.toolCalls.length, 0),
    tool_errors: turns.reduce(
      (sum, turn) => sum + turn.toolCalls.filter((c) => c.status === 'ERROR').length,
      0,
    ),
    input_tokens: turns.reduce((sum, turn) => sum + turn.tokens.input, 0),
    output_tokens: turns.reduce((sum, turn) => sum + turn.tokens.output, 0),
    total_tokens: turns.reduce((sum, turn) => sum + turn.tokens.total, 0),
    latency_ms: turns.reduce((sum, turn) => sum + turn.latencyMs, 0),
  };
  const none = {
    outcome_correct: false,
    root_cause_hit: false,
    forbidden_absent: false,
    citations_valid: false,
  };
  if (!final) {
    return {
      status: 'not_scored',
      passed: false,
      released_conclusion: false,
      checks: none,
      problems: ['no turn was observed'],
      metrics,
    };
  }
  const providerFailures = turns
    .map(providerFailureOf)
    .filter((problem): problem is string => problem !== null);
  if (providerFailures.length > 0)
    return {
      status: 'not_scored',
      passed: false,
      released_conclusion: false,
      checks: none,
      problems: providerFailures,
      metrics,
    };
  const report = reportOf(final);
  const results = {
    outcome_correct: outcomeCheck(expect, final, report),
    root_cause_hit: rootCauseCheck(expect, report),
    forbidden_absent: forbiddenCheck(expect, report),
    citations_valid: citationCheck(expect, final, report),
  };
  const earlier = turns
    .slice(0, -1)
    .filter((turn) => turn.outcome !== 'SUCCESS' && turn.outcome !== 'FALLBACK')
    .map((turn) => `an earlier turn ended ${turn.outcome ?? 'without an outcome'}`);
  const problems = [
    ...earlier,
    ...Object.values(results).filter((problem): problem is string => problem !== null),
  ];
  const checks = {
    outcome_correct: results.outcome_correct === null && earlier.length === 0,
    root_cause_hit: results.root_cause_hit === null,
    forbidden_absent: results.forbidden_absent === null,
    citations_valid: results.citations_valid === null,
  };
  const passed = Object.values(checks).every(Boolean);
  return {
    status: passed ? 'pass' : 'fail',
    passed,
    released_conclusion: final.outcome === 'SUCCESS' && !!report?.conclusion,
    checks,
    problems,
    metrics,
  };
}
