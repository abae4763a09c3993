import type { FailureCode, StatusCode } from './chat-stream';
import type { FallbackType } from './payloads';

/**
 * The short label of every code, as the web UI shows it and the generated reference (docs/codes.md) lists
 * it: a Record over each closed set, so a new code without its label does not compile.
 */
export const STATUS_LABELS: Record<StatusCode, string> = {
  ROUTING: 'Understanding the request',
  ANSWERING: 'Answering',
  KNOWLEDGE_SEARCHING: 'Searching the knowledge base',
  PLANNING: 'Planning the investigation',
  DIAGNOSIS_PLAN: 'Investigation plan',
  TOOL_RUNNING: 'Collecting evidence',
  TOOL_DONE: 'Evidence received',
  EVIDENCE_VALIDATING: 'Checking every claim against its evidence',
  EVIDENCE_REPAIRING: 'Repairing citations',
  SEMANTIC_VALIDATING: 'Reviewing the report',
  RELEASING: 'Releasing the report',
};

export const FAILURE_LABELS: Record<FailureCode, string> = {
  ROUTING_UNAVAILABLE: 'The request could not be routed',
  MODEL_UNAVAILABLE: 'The language model is unavailable',
  MODEL_RATE_LIMITED: 'The language model is rate limited',
  MODEL_AUTH_FAILED: 'The language model rejected the service key',
  MODEL_QUOTA_EXHAUSTED: 'The language model account has no quota or balance left',
  MODEL_NOT_FOUND: 'The configured language model does not exist',
  MODEL_ENDPOINT_INVALID: 'The language model address is wrong',
  MODEL_TLS_FAILED: "The language model's certificate is not trusted",
  MODEL_CONTENT_FILTERED: "The language model's content filter refused the request",
  MODEL_CONTEXT_TOO_LONG: 'The request is too long for the language model',
  MODEL_REQUEST_REJECTED: 'The language model rejected the request',
  MODEL_BAD_RESPONSE: 'The language model answered with something unusable',
  BUDGET_EXHAUSTED: 'The run used up its budget',
  RUN_TIMEOUT: 'The run reached its time limit',
  KNOWLEDGE_UNAVAILABLE: 'The knowledge base could not be searched',
  RUN_NOT_RECORDED: 'The run could not be recorded and did not start',
  INTERNAL_ERROR: 'The service failed',
};

export const FALLBACK_LABELS: Record<FallbackType, string> = {
  EVIDENCE_VALIDATION_FAILED: 'The draft did not pass evidence validation',
  SEMANTIC_UNSUPPORTED: 'The evidence does not support a conclusion',
  SEMANTIC_UNAVAILABLE: 'The safety review was unavailable',
  KNOWLEDGE_UNVERIFIED: 'The knowledge answer could not be verified',
};
