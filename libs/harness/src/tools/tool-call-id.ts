const TOOL_CALL_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** The framework's tool_call_id is used as is, but only when it is non-empty, ≤128 chars and [A-Za-z0-9_.:-]. */
export function isValidToolCallId(id: unknown): id is string {
  return typeof id === 'string' && TOOL_CALL_ID.test(id);
}
