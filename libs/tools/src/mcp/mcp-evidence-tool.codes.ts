/**
 * The ToolFailure codes every MCP evidence tool may return to the agent, beside the boundary's own (TOOL_TIMEOUT, ...):
 * a closed set, so a failure with a code not listed here does not compile.
 */
export const MCP_TOOL_FAILURE_CODES = [
  'MCP_SERVER_UNAVAILABLE',
  'MCP_TIMEOUT',
  'INVALID_ARGUMENTS',
  'MCP_TOOL_FAILED',
  'MCP_TOOL_ERROR',
  'MCP_PARSE_ERROR',
  'MCP_BAD_RESPONSE',
  'MCP_RESULT_TOO_LARGE',
] as const;
export type McpToolFailureCode = (typeof MCP_TOOL_FAILURE_CODES)[number];
