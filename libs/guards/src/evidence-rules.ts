import type { AnalysisKind } from '@app/contracts';
import type { AgentResult, CanonicalInvocation, EvidenceGap } from '@app/harness';
import type { Draft } from './draft.schema';
import { EvidenceLookup, VerifiedEvidence, verifiedEvidenceOf } from './verified-evidence';

export interface AnalysisEvidence {
  analysis_id: string;
  analysis_text: string;
  kind: AnalysisKind;
  verified_evidence: VerifiedEvidence[];
}

/** What passes EvidenceGuard: the evidence of every analysis, plus the cited calls in first-citation order. */
export interface VerifiedSnapshot {
  byAnalysis: AnalysisEvidence[];
  /** tool_call_id -> verified evidence, for the references of the released report; Harness-only. */
  cited: Map<string, VerifiedEvidence & { tool_name: string }>;
  /** tool_call_id -> what the cited result could not read in its scope (the tool's typed `gapOf`). */
  gaps?: ReadonlyMap<string, EvidenceGap>;
}

export type EvidenceCheck = { ok: true; snapshot: VerifiedSnapshot } | { ok: false; violations: string[] };

/**
 * The EvidenceGuard rules, as a pure function over the draft and the canonical records of
 * the cited calls (null = no such record in this run). Checks authenticity and structure only; whether
 * the evidence supports the analysis is SemanticGuard's question.
 */
export function checkEvidence(
  draft: Draft,
  runId: string,
  records: ReadonlyMap<string, CanonicalInvocation | null>,
  tools: EvidenceLookup,
): EvidenceCheck {
  const violations: string[] = [];
  const ids = new Set<string>();
  for (const analysis of draft.analysis) {
    if (ids.has(analysis.analysis_id))
      violations.push(`analysis_id ${analysis.analysis_id} is used more than once`);
    ids.add(analysis.analysis_id);
  }

  const byAnalysis: AnalysisEvidence[] = [];
  const cited = new Map<string, VerifiedEvidence & { tool_name: string }>();
  const gaps = new Map<string, EvidenceGap>();
  for (const analysis of draft.analysis) {
    const where = `analysis ${analysis.analysis_id}`;
    if (analysis.tool_call_ids.length === 0) violations.push(`${where} cites no tool_call_id`);
    const evidence: VerifiedEvidence[] = [];
    for (const toolCallId of new Set(analysis.tool_call_ids)) {
      const record = records.get(toolCallId) ?? null;
      if (!record || record.run_id !== runId) {
        violations.push(`${where} cites ${toolCallId}, which is not a tool call of this run`);
        continue;
      }
      if (record.status === 'ERROR' || record.evidence_status === 'ERROR') {
        violations.push(`${where} cites ${toolCallId}, which failed (ERROR) and cannot be evidence`);
        continue;
      }
      if (record.status !== 'READY' || !record.agent_result) {
        violations.push(`${where} cites ${toolCallId}, which has no verified result`);
        continue;
      }
      if (analysis.kind === 'NORMAL' && record.evidence_status !== 'EVIDENCE_FOUND') {
        violations.push(
          `${where} is NORMAL but cites ${toolCallId}, which found no evidence (only NEGATIVE_OBSERVATION may cite NO_EVIDENCE)`,
        );
        continue;
      }
      const verified = verifiedEvidenceOf(
        record as CanonicalInvocation & { agent_result: AgentResult },
        tools,
      );
      evidence.push(verified);
      if (!cited.has(toolCallId)) cited.set(toolCallId, { ...verified, tool_name: record.tool_name });
      const gap = tools(record.tool_name)?.gapOf?.(record.agent_result as AgentResult) ?? null;
      if (gap) gaps.set(toolCallId, gap);
    }
    byAnalysis.push({
      analysis_id: analysis.analysis_id,
      analysis_text: analysis.text,
      kind: analysis.kind,
      verified_evidence: evidence,
    });
  }

  const checkRefs = (where: string, refs: string[]) => {
    if (refs.length === 0) violations.push(`${where} is not based on any analysis`);
    for (const ref of refs)
      if (!ids.has(ref)) violations.push(`${where} refers to analysis ${ref}, which does not exist`);
  };
  if (draft.conclusion) checkRefs('conclusion', draft.conclusion.based_on_analysis_ids);
  draft.action_plan.forEach((item, index) => checkRefs(`action_plan[${index}]`, item.based_on_analysis_ids));
  draft.recommendations.forEach((item, index) =>
    checkRefs(`recommendations[${index}]`, item.based_on_analysis_ids),
  );

  return violations.length > 0
    ? { ok: false, violations }
    : { ok: true, snapshot: { byAnalysis, cited, gaps } };
}
