import type { AgentResult, CanonicalInvocation } from '@app/harness';

/** One verified tool result as the guards and the report see it: source, scope and exact values, no ids. */
export interface VerifiedEvidence {
  source_type: 'KNOWLEDGE' | 'LOG' | 'MYSQL' | 'OTHER';
  source: string;
  scope: string;
  evidence_status: 'EVIDENCE_FOUND' | 'NO_EVIDENCE';
  /** Exact excerpts / patterns / rows from the agent_result (never the raw response). */
  values: unknown;
  truncated: boolean;
}

type Scope = Record<string, unknown>;
const asScope = (value: unknown): Scope =>
  typeof value === 'object' && value !== null ? (value as Scope) : {};

/** Deterministic view of one READY invocation's agent_result; the tool_call_id stays with the Harness. */
export function verifiedEvidenceOf(
  record: CanonicalInvocation & { agent_result: AgentResult },
): VerifiedEvidence {
  const result = record.agent_result;
  const evidenceStatus = record.evidence_status === 'NO_EVIDENCE' ? 'NO_EVIDENCE' : 'EVIDENCE_FOUND';
  const truncated = result.truncated === true;
  switch (record.tool_name) {
    case 'lookup_knowledge':
      return {
        source_type: 'KNOWLEDGE',
        source: 'knowledge base',
        scope: `query: ${String(result.query ?? '')}`,
        evidence_status: evidenceStatus,
        values: result.evidence ?? [],
        truncated,
      };
    case 'query_logs': {
      const scope = asScope(result.scope);
      return {
        source_type: 'LOG',
        source: `${String(scope.topic ?? 'logs')} (${String(result.source_kind ?? 'UNKNOWN')})`,
        scope: `query: ${String(scope.query ?? '')}; ${String(scope.start_time ?? '')} – ${String(scope.end_time ?? '')}; ${String(result.match_count ?? 0)} matching events`,
        evidence_status: evidenceStatus,
        values: { patterns: result.patterns ?? [], events: result.events ?? [] },
        truncated,
      };
    }
    case 'query_mysql': {
      const scope = asScope(result.scope);
      return {
        source_type: 'MYSQL',
        source: String(scope.data_source ?? 'mysql'),
        scope: `${String(scope.sql ?? '')} params=${JSON.stringify(scope.params ?? [])}`,
        evidence_status: evidenceStatus,
        values: { columns: result.columns ?? [], rows: result.rows ?? [] },
        truncated,
      };
    }
    default: {
      const { tool_call_id: _id, evidence_status: _status, truncated: _truncated, ...values } = result;
      return {
        source_type: 'OTHER',
        source: record.tool_name,
        scope: '',
        evidence_status: evidenceStatus,
        values,
        truncated,
      };
    }
  }
}

/** Log evidence from the MOCK (demo) source: it must never read as live production data (seed §8.3). */
export function isMockEvidence(evidence: Pick<VerifiedEvidence, 'source_type' | 'source'>): boolean {
  return evidence.source_type === 'LOG' && evidence.source.endsWith('(MOCK)');
}
