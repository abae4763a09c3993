/**
 * The ToolFailure codes lookup_knowledge may return to the agent, beside the boundary's own (TOOL_TIMEOUT, ...):
 * a closed set, so a failure with a code not listed here does not compile.
 */
export const LOOKUP_KNOWLEDGE_FAILURE_CODES = [
  'KNOWLEDGE_TIMEOUT',
  'KNOWLEDGE_UNAVAILABLE',
  'KNOWLEDGE_BAD_RESPONSE',
] as const;
export type LookupKnowledgeFailureCode = (typeof LOOKUP_KNOWLEDGE_FAILURE_CODES)[number];
