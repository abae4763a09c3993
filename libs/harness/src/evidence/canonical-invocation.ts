export const INVOCATION_STATUSES = ['PROJECTING', 'READY', 'ERROR'] as const;
export type InvocationStatus = (typeof INVOCATION_STATUSES)[number];

export const EVIDENCE_STATUSES = ['EVIDENCE_FOUND', 'NO_EVIDENCE', 'ERROR'] as const;
export type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];

/** The agent-facing projection of one call: always carries its id, evidence status and truncation flag. */
export type AgentResult = {
  evidence_status: EvidenceStatus;
  tool_call_id: string;
  truncated: boolean;
} & Record<string, unknown>;

/**
 * The Redis canonical invocation (docs/architecture.md "Redis canonical record"): the full record of one tool call, Harness-only.
 * `evidence_status` is null while PROJECTING, EVIDENCE_FOUND/NO_EVIDENCE only when READY, ERROR when ERROR.
 */
export interface CanonicalInvocation {
  tool_call_id: string;
  run_id: string;
  tool_name: string;
  request: unknown;
  raw_response: unknown;
  agent_result: AgentResult | null;
  status: InvocationStatus;
  evidence_status: EvidenceStatus | null;
  error_code: string | null;
  started_at: string;
  ended_at: string | null;
}

export type ReadyInvocation = CanonicalInvocation & {
  status: 'READY';
  evidence_status: 'EVIDENCE_FOUND' | 'NO_EVIDENCE';
  agent_result: AgentResult;
};
