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

/**
 * Why a run ended CANCELLED (its run row's error_code; nothing is announced): the client left, or the
 * service stopped before a queued run without a client (an alert-started one) could start.
 */
export const CANCEL_CAUSES = ['CLIENT_DISCONNECTED', 'SERVICE_STOPPING'] as const;
export type CancelCause = (typeof CANCEL_CAUSES)[number];

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
  // MySQL did not record the run's start in time: the run never began (a late row is closed ABANDONED).
  'RUN_NOT_RECORDED',
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

/**
 * One event of `POST /api/chat`: queued* (only while every slot is busy), metadata, status*, content xor
 * failure, done.
 */
export type ChatEvent =
  /**
   * The request waits for a chat slot: `ahead` requests that arrived earlier still wait too (a freed slot
   * goes to the key with the fewest runs in flight first, so another key's later request may overtake).
   * Sent at once when the request queues, then again whenever `ahead` changes.
   */
  | { event: 'queued'; data: { ahead: number } }
  | { event: 'metadata'; data: { session_id: string; run_id: string } }
  | { event: 'status'; data: { code: StatusCode; message: string } }
  | { event: 'content'; data: ChatContent }
  | { event: 'failure'; data: { code: FailureCode; message: string } }
  | { event: 'done'; data: { outcome: DoneOutcome } };

/** Every event name, in stream order; a name added to ChatEvent without one here fails to compile. */
export const CHAT_EVENT_NAMES = [
  'queued',
  'metadata',
  'status',
  'content',
  'failure',
  'done',
] as const satisfies readonly ChatEvent['event'][];
type MissingEventName = Exclude<ChatEvent['event'], (typeof CHAT_EVENT_NAMES)[number]>;
/** Compiles only while CHAT_EVENT_NAMES names every event of ChatEvent. */
export const CHAT_EVENT_NAMES_COMPLETE: MissingEventName extends never ? true : never = true;
