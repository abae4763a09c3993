import type { DiagnosisReport, Fallback, KnowledgeAnswer, SystemAnswer } from './payloads';

/** The fixed, documented status codes of the chat stream (docs/architecture.md "SSE"). */
export const STATUS_CODES = [
  'ROUTING',
  'ANSWERING',
  'KNOWLEDGE_SEARCHING',
  'PLANNING',
  'DIAGNOSIS_PLAN',
  'TOOL_RUNNING',
  'TOOL_DONE',
  'EVIDENCE_VALIDATING',
  'EVIDENCE_REPAIRING',
  'SEMANTIC_VALIDATING',
  'RELEASING',
] as const;
export type StatusCode = (typeof STATUS_CODES)[number];

export const CONTENT_TYPES = ['SYSTEM_ANSWER', 'KNOWLEDGE_ANSWER', 'DIAGNOSIS_REPORT', 'FALLBACK'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export const FAILURE_CODES = [
  'ROUTING_UNAVAILABLE',
  'MODEL_UNAVAILABLE',
  // The provider's failures by class (docs/provider-failures.md): transient, then final ones.
  'MODEL_RATE_LIMITED',
  'MODEL_AUTH_FAILED',
  'MODEL_QUOTA_EXHAUSTED',
  'MODEL_NOT_FOUND',
  'MODEL_ENDPOINT_INVALID',
  'MODEL_TLS_FAILED',
  'MODEL_CONTENT_FILTERED',
  'MODEL_CONTEXT_TOO_LONG',
  'MODEL_REQUEST_REJECTED',
  'MODEL_BAD_RESPONSE',
  'BUDGET_EXHAUSTED',
  'RUN_TIMEOUT',
  'KNOWLEDGE_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

export const DONE_OUTCOMES = ['SUCCESS', 'FALLBACK', 'FAILED'] as const;
export type DoneOutcome = (typeof DONE_OUTCOMES)[number];

/** The payload each content type carries. */
export interface ContentPayloads {
  SYSTEM_ANSWER: SystemAnswer;
  KNOWLEDGE_ANSWER: KnowledgeAnswer;
  DIAGNOSIS_REPORT: DiagnosisReport;
  FALLBACK: Fallback;
}

export type ChatContent = {
  [Type in ContentType]: { content_type: Type; payload: ContentPayloads[Type] };
}[ContentType];

/** One event of `POST /api/chat`: metadata, status*, content xor failure, done. */
export type ChatEvent =
  | { event: 'metadata'; data: { session_id: string; run_id: string } }
  | { event: 'status'; data: { code: StatusCode; message: string } }
  | { event: 'content'; data: ChatContent }
  | { event: 'failure'; data: { code: FailureCode; message: string } }
  | { event: 'done'; data: { outcome: DoneOutcome } };
