import type { Expectation } from './scenario';

/** What the runner saw of one chat turn over HTTP: the SSE outcome and content, plus the run's trace. */
export interface TurnObservation {
  /** `done.outcome`, or null when the stream ended without one. */
  outcome: string | null;
  contentType: string | null;
  payload: unknown;
  failureCode: string | null;
  latencyMs: number;
  toolCalls: { tool_name: string; status: string; evidence_status: string | null }[];
  tokens: { input: number; output: number; total: number };
}

export interface ScenarioScore {
  passed: boolean;
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
  references: { reference_id: number; source_type: string; source: string }[];
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
  const missing = expect.root_cause.filter((marker) => !new RegExp(marker, 'i').test(conclusion));
  return missing.length > 0
    ? `conclusion misses root-cause marker(s) ${missing.map((m) => `/${m}/`).join(', ')}`
    : null;
}

function forbiddenCheck(expect: Expectation, report: ReportShape | null): string | null {
  if (!report) return null;
  const claims = claimsOf(report);
  const found = expect.forbidden.filter((pattern) =>
    claims.some((claim) => new RegExp(pattern, 'i').test(claim)),
  );
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
  const mockLogs = report.references.filter(
    (reference) => reference.source_type === 'LOG' && !/\(FILE\)/.test(reference.source),
  );
  if (mockLogs.length > 0) return 'log evidence is not from the FILE log source';
  const missing = expect.evidence.filter(
    (type) => !citedReferences.some((reference) => reference.source_type === type),
  );
  return missing.length > 0 ? `no ${missing.join(', ')} evidence cited by the analysis` : null;
}

/**
 * Scores the final turn of a scenario run against its expectation; `turns` (all turns, in order) give
 * the totals of tool calls, tokens and latency. Pure: the same observation always scores the same.
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
  if (!final) {
    return {
      passed: false,
      checks: {
        outcome_correct: false,
        root_cause_hit: false,
        forbidden_absent: false,
        citations_valid: false,
      },
      problems: ['no turn was observed'],
      metrics,
    };
  }
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
  return { passed: Object.values(checks).every(Boolean), checks, problems, metrics };
}
