/**
 * The ToolFailure codes query_logs may return to the agent, beside the boundary's own (TOOL_TIMEOUT, ...):
 * a closed set, so a failure with a code not listed here does not compile.
 */
export const QUERY_LOGS_FAILURE_CODES = ['LOG_DIRECTORY_UNREADABLE'] as const;
export type QueryLogsFailureCode = (typeof QUERY_LOGS_FAILURE_CODES)[number];
