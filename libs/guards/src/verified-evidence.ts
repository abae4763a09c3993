import type { ReferenceEvidenceStatus } from '@app/contracts';
import type { AgentResult, AnyHarnessTool, CanonicalInvocation, EvidenceView } from '@app/harness';

/** One verified tool result as the guards and the report see it: source, scope and exact values, no ids. */
export interface VerifiedEvidence extends EvidenceView {
  evidence_status: ReferenceEvidenceStatus;
  truncated: boolean;
}

/** How the guards find a tool's own evidence reading; the tool catalog answers it. */
export type EvidenceLookup = (toolName: string) => Pick<AnyHarnessTool, 'evidenceOf' | 'gapOf'> | undefined;

/** A result of a tool this process does not know: its fields as they are, under the tool's name. */
function unknownToolEvidence(toolName: string, result: AgentResult): EvidenceView {
  const { tool_call_id: _id, evidence_status: _status, truncated: _truncated, ...values } = result;
  return { source_type: 'OTHER', source: toolName, scope: '', values, demo: false };
}

/** Deterministic view of one READY invocation's agent_result; the tool_call_id stays with the Harness. */
export function verifiedEvidenceOf(
  record: CanonicalInvocation & { agent_result: AgentResult },
  lookup: EvidenceLookup,
): VerifiedEvidence {
  const result = record.agent_result;
  const tool = lookup(record.tool_name);
  return {
    ...(tool ? tool.evidenceOf(result) : unknownToolEvidence(record.tool_name, result)),
    evidence_status: record.evidence_status === 'NO_EVIDENCE' ? 'NO_EVIDENCE' : 'EVIDENCE_FOUND',
    truncated: result.truncated === true,
  };
}

/** Demo evidence (the MOCK log source): it must never read as live production data. */
export function isDemoEvidence(evidence: Pick<VerifiedEvidence, 'demo'>): boolean {
  return evidence.demo;
}
