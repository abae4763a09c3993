/** `SYSTEM_ANSWER`: a reply to small talk or a question about the service itself. */
export interface SystemAnswer {
  answer: string;
}

/** A knowledge-base document retrieved for a question, as the answer cites it. */
export interface RetrievedDocument {
  document_id: string;
  title: string;
  source: string;
  breadcrumb: string;
  excerpt: string;
}

/** `KNOWLEDGE_ANSWER`: an answer backed by retrieved documents, or the fixed "not found" answer. */
export interface KnowledgeAnswer {
  answer: string;
  references: RetrievedDocument[];
  limitations: string;
}

/** What kind of evidence a reference is; the web UI renders a reference by this, never by tool name. */
export const EVIDENCE_SOURCE_TYPES = ['KNOWLEDGE', 'LOG', 'MYSQL', 'METRIC', 'OTHER'] as const;
export type EvidenceSourceType = (typeof EVIDENCE_SOURCE_TYPES)[number];

/** The evidence statuses a released reference can have (an ERROR result is never cited). */
export const REFERENCE_EVIDENCE_STATUSES = ['EVIDENCE_FOUND', 'NO_EVIDENCE'] as const;
export type ReferenceEvidenceStatus = (typeof REFERENCE_EVIDENCE_STATUSES)[number];

export const ANALYSIS_KINDS = ['NORMAL', 'NEGATIVE_OBSERVATION'] as const;
export type AnalysisKind = (typeof ANALYSIS_KINDS)[number];

/** One verified tool result a report cites: source, scope and exact values, no ids. */
export interface Reference {
  reference_id: number;
  source_type: EvidenceSourceType;
  source: string;
  scope: string;
  evidence_status: ReferenceEvidenceStatus;
  /**
   * KNOWLEDGE: evidence excerpts; LOG: {patterns, events}; MYSQL: {columns, rows}; METRIC: series
   * summaries ({labels, samples, first, last, min, max, mean, change_points, trend} per range series,
   * {labels, value, at} per instant one); OTHER: the tool's own fields.
   */
  values: unknown;
  truncated: boolean;
  /**
   * The evidence is generated demo data (the MOCK log source), never live production data: the server
   * appends MOCK_SCOPE_NOTE to the report's scope and the web UI shows a notice, both by this field.
   */
  demo: boolean;
}

/** Appended by the server to a report's scope whenever it cites demo evidence (`Reference.demo`). */
export const MOCK_SCOPE_NOTE =
  '日志证据来自 MOCK 演示数据源，不是生产实时数据 / Log evidence comes from a MOCK source, not live production data.';

/** `DIAGNOSIS_REPORT`: the agent's semantic content unchanged, citations expanded to references. */
export interface DiagnosisReport {
  conclusion: { text: string; based_on_analysis_ids: string[] } | null;
  analysis: {
    analysis_id: string;
    kind: AnalysisKind;
    text: string;
    reference_ids: number[];
  }[];
  action_plan: { action: string; based_on_analysis_ids: string[]; requires_human_confirmation: boolean }[];
  recommendations: { text: string; based_on_analysis_ids: string[] }[];
  limitations: { scope: string; missing_info: string[] };
  references: Reference[];
}

export const FALLBACK_TYPES = [
  'EVIDENCE_VALIDATION_FAILED',
  'SEMANTIC_UNSUPPORTED',
  'SEMANTIC_UNAVAILABLE',
  'KNOWLEDGE_UNVERIFIED',
] as const;
export type FallbackType = (typeof FALLBACK_TYPES)[number];

/** `FALLBACK`: the fixed safe answer, built from a template, never by an LLM, never with draft text. */
export interface Fallback {
  type: FallbackType;
  conclusion: null;
  message: string;
  verified_sources: { source_type: string; source: string; scope: string }[];
  limitations: string[];
  next_steps: string[];
}
