/**
 * The ToolFailure codes lookup_knowledge may return to the agent, beside the boundary's own (TOOL_TIMEOUT, ...):
 * a closed set, so a failure with a code not listed here does not compile.
 */
export const LOOKUP_KNOWLEDGE_FAILURE_CODES = [
  'KNOWLEDGE_TIMEOUT',
  'KNOWLEDGE_UNAVAILABLE',
  'KNOWLEDGE_BAD_RESPONSE',
  /** The embedded index is still loading after a start: the base was not searched. */
  'KNOWLEDGE_INDEX_LOADING',
  /** The embedded index failed to load (readiness names the cause); the base was not searched. */
  'KNOWLEDGE_INDEX_FAILED',
] as const;
export type LookupKnowledgeFailureCode = (typeof LOOKUP_KNOWLEDGE_FAILURE_CODES)[number];
