/**
 * The wire contracts the UI reads (README "The chat stream", docs/architecture.md "Contracts"). The UI is an HTTP
 * client like any other, so it keeps its own copy of the shapes instead of importing server code.
 */

export type StatusCode =
  | 'ROUTING'
  | 'ANSWERING'
  | 'KNOWLEDGE_SEARCHING'
  | 'PLANNING'
  | 'DIAGNOSIS_PLAN'
  | 'TOOL_RUNNING'
  | 'TOOL_DONE'
  | 'EVIDENCE_VALIDATING'
  | 'EVIDENCE_REPAIRING'
  | 'SEMANTIC_VALIDATING'
  | 'RELEASING';

export type FailureCode =
  | 'ROUTING_UNAVAILABLE'
  | 'MODEL_UNAVAILABLE'
  | 'BUDGET_EXHAUSTED'
  | 'RUN_TIMEOUT'
  | 'KNOWLEDGE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export type DoneOutcome = 'SUCCESS' | 'FALLBACK' | 'FAILED';

export type ChatContent =
  | { content_type: 'SYSTEM_ANSWER'; payload: SystemAnswer }
  | { content_type: 'KNOWLEDGE_ANSWER'; payload: KnowledgeAnswer }
  | { content_type: 'DIAGNOSIS_REPORT'; payload: DiagnosisReport }
  | { content_type: 'FALLBACK'; payload: Fallback };

export type ChatEvent =
  | { event: 'metadata'; data: { session_id: string; run_id: string } }
  | { event: 'status'; data: { code: StatusCode; message: string } }
  | { event: 'content'; data: ChatContent }
  | { event: 'failure'; data: { code: FailureCode; message: string } }
  | { event: 'done'; data: { outcome: DoneOutcome } };

export interface SystemAnswer {
  answer: string;
}

export interface RetrievedDocument {
  document_id: string;
  title: string;
  source: string;
  breadcrumb: string;
  excerpt: string;
}

export interface KnowledgeAnswer {
  answer: string;
  references: RetrievedDocument[];
  limitations: string;
  found: boolean;
}

export interface Reference {
  reference_id: number;
  source_type: 'KNOWLEDGE' | 'LOG' | 'MYSQL' | 'OTHER';
  source: string;
  scope: string;
  evidence_status: 'EVIDENCE_FOUND' | 'NO_EVIDENCE';
  /** KNOWLEDGE: evidence excerpts; LOG: {patterns, events}; MYSQL: {columns, rows}. */
  values: unknown;
  truncated: boolean;
}

export interface DiagnosisReport {
  conclusion: { text: string; based_on_analysis_ids: string[] } | null;
  analysis: {
    analysis_id: string;
    kind: 'NORMAL' | 'NEGATIVE_OBSERVATION';
    text: string;
    reference_ids: number[];
  }[];
  action_plan: { action: string; based_on_analysis_ids: string[]; requires_human_confirmation: boolean }[];
  recommendations: { text: string; based_on_analysis_ids: string[] }[];
  limitations: { scope: string; missing_info: string[] };
  references: Reference[];
}

export interface Fallback {
  type:
    'EVIDENCE_VALIDATION_FAILED' | 'SEMANTIC_UNSUPPORTED' | 'SEMANTIC_UNAVAILABLE' | 'KNOWLEDGE_UNVERIFIED';
  conclusion: null;
  message: string;
  verified_sources: { source_type: string; source: string; scope: string }[];
  limitations: string[];
  next_steps: string[];
}

export interface BudgetTotals {
  model_calls: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  exhausted: string | null;
}

export interface RunSummary {
  run_id: string;
  query: string;
  intent: string | null;
  status: string;
  release_outcome: string | null;
  conclusion: string | null;
  fallback_reason: string | null;
  error_code: string | null;
  budget: BudgetTotals;
  created_at: string;
  ended_at: string | null;
  duration_ms: number | null;
}

export interface SessionView {
  session_id: string;
  created_at: string;
  updated_at: string;
}

/** GET /api/diagnosis/sessions: the calling key's sessions, last activity first, a page per cursor. */
export interface SessionList {
  sessions: {
    session_id: string;
    created_at: string;
    updated_at: string;
    last_run_at: string | null;
    run_count: number;
    last_outcome: string | null;
    last_query: string | null;
  }[];
  limit: number;
  next_cursor: string | null;
}

export interface SessionRuns {
  session: SessionView;
  runs: RunSummary[];
  limit: number;
  offset: number;
}

export interface RunTrace {
  session: SessionView;
  run: RunSummary;
  steps: {
    step_index: number;
    role: string;
    attempt: number;
    status: string;
    error_code: string | null;
    finish_reason: string | null;
    tool_call_count: number;
    input_tokens: number | null;
    output_tokens: number | null;
    total_tokens: number | null;
    started_at: string;
    duration_ms: number | null;
  }[];
  tool_invocations: {
    tool_call_id: string | null;
    tool_name: string;
    status: string;
    evidence_status: string | null;
    error_code: string | null;
    arg_summary: Record<string, string | number | boolean> | null;
    request_bytes: number | null;
    raw_bytes: number | null;
    agent_result_bytes: number | null;
    truncated: boolean;
    started_at: string;
    duration_ms: number | null;
  }[];
  timeline: { phase: string; event_type: string; details: Record<string, unknown> | null; at: string }[];
}

export interface RunReasoning {
  session_id: string;
  run_id: string;
  steps: {
    step_index: number;
    role: string;
    /** PROVIDER_REASONING, ASSISTANT_TEXT_ONLY, UNAVAILABLE, or UNDECRYPTABLE (the stored text did not open). */
    content_source: string;
    reasoning_content: string | null;
    assistant_text: string | null;
  }[];
}

export type DocumentStatus = 'PENDING' | 'INDEXED' | 'FAILED';

export interface KnowledgeDocument {
  document_id: string;
  title: string;
  category: string | null;
  fault_source: string | null;
  file_name: string;
  content_type: string;
  size_bytes: number;
  status: DocumentStatus;
  chunk_count: number;
  created_at: string;
  updated_at: string;
}
