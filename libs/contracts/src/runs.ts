/** What routing decided a request is; the run row, the trace API and the service's metrics use these. */
export const INTENTS = ['SYSTEM_CHAT', 'KNOWLEDGE_QUERY', 'DIAGNOSIS'] as const;
export type Intent = (typeof INTENTS)[number];

/** The LLM roles of a run, one system prompt each (`prompts/<role>.md`); a trace step's `role`. */
export const MODEL_ROLES = [
  'intent-router',
  'system-chat',
  'knowledge-answer',
  'knowledge-guard',
  'diagnosis-agent',
  'evidence-repair',
  'semantic-guard',
] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];
