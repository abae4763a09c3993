import { z } from 'zod';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolFailureCode } from './mcp-evidence-tool.codes';

/** What our own transports found wrong with an answer before the client library could see it. */
export type McpTransportFailureKind = 'RESULT_TOO_LARGE' | 'PARSE_ERROR' | 'BAD_RESPONSE' | 'UNAVAILABLE';

/**
 * Carried as the `data` of a JSON-RPC error our transport puts in place of the answer it refused: an object
 * no server can send (it is not JSON), so the failure cannot be confused with the server's own errors.
 */
export class McpTransportFailure {
  constructor(
    readonly kind: McpTransportFailureKind,
    readonly detail: string,
  ) {}
}

/** Wraps the `data` of every error the server itself answered, so it is told apart from the client's own. */
export class McpServerErrorData {
  constructor(readonly data: unknown) {}
}

export interface ClassifiedMcpFailure {
  code: McpToolFailureCode;
  /** For the log line: what happened, never the server's payload. */
  detail: string;
}

const TRANSPORT_CODES = {
  RESULT_TOO_LARGE: 'MCP_RESULT_TOO_LARGE',
  PARSE_ERROR: 'MCP_PARSE_ERROR',
  BAD_RESPONSE: 'MCP_BAD_RESPONSE',
  UNAVAILABLE: 'MCP_SERVER_UNAVAILABLE',
} as const satisfies Record<McpTransportFailureKind, McpToolFailureCode>;

/**
 * Why one MCP call failed, as a stable Tool ERROR code. Known classes only; whatever else reaches here
 * (the connection refused, a write to a dead process) means the server cannot be used: unavailable.
 */
export function classifyMcpError(error: unknown): ClassifiedMcpFailure {
  if (error instanceof McpError) {
    if (error.data instanceof McpTransportFailure)
      return { code: TRANSPORT_CODES[error.data.kind], detail: error.data.detail };
    if (error.data instanceof McpServerErrorData)
      return error.code === (ErrorCode.InvalidParams as number)
        ? { code: 'INVALID_ARGUMENTS', detail: 'the server refused the arguments' }
        : { code: 'MCP_TOOL_FAILED', detail: `the server answered JSON-RPC error ${error.code}` };
    if (error.code === (ErrorCode.RequestTimeout as number))
      return { code: 'MCP_TIMEOUT', detail: 'no answer within the server timeout' };
    if (error.code === (ErrorCode.ConnectionClosed as number))
      return { code: 'MCP_SERVER_UNAVAILABLE', detail: 'the connection closed' };
    // Raised by the client library on an answer it did receive: it does not fit the tool's output schema.
    return {
      code: 'MCP_BAD_RESPONSE',
      detail: `the answer does not fit the tool (client error ${error.code})`,
    };
  }
  // The JSON-RPC envelope was fine but its result is not a tool result.
  if (error instanceof z.core.$ZodError)
    return { code: 'MCP_BAD_RESPONSE', detail: 'the answer is not a tool result' };
  return {
    code: 'MCP_SERVER_UNAVAILABLE',
    detail: `the server cannot be reached (${error instanceof Error ? error.name : 'error'})`,
  };
}
