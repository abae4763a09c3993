import { z } from 'zod';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { classifyMcpError, McpServerErrorData, McpTransportFailure } from './mcp-failure';

const zodError = z.object({ content: z.array(z.string()) }).safeParse({ content: 'x' }).error;

describe('classifyMcpError', () => {
  it.each([
    [
      'an answer over the cap',
      new McpError(-32099, 'x', new McpTransportFailure('RESULT_TOO_LARGE', 'd')),
      'MCP_RESULT_TOO_LARGE',
    ],
    [
      'an answer that is not JSON',
      new McpError(-32099, 'x', new McpTransportFailure('PARSE_ERROR', 'd')),
      'MCP_PARSE_ERROR',
    ],
    [
      'a message that is not JSON-RPC',
      new McpError(-32099, 'x', new McpTransportFailure('BAD_RESPONSE', 'd')),
      'MCP_BAD_RESPONSE',
    ],
    [
      'a broken exchange',
      new McpError(-32099, 'x', new McpTransportFailure('UNAVAILABLE', 'd')),
      'MCP_SERVER_UNAVAILABLE',
    ],
    [
      'the server refused the arguments',
      new McpError(ErrorCode.InvalidParams, 'x', new McpServerErrorData(undefined)),
      'INVALID_ARGUMENTS',
    ],
    [
      'the server failed',
      new McpError(ErrorCode.InternalError, 'x', new McpServerErrorData({ a: 1 })),
      'MCP_TOOL_FAILED',
    ],
    // A server may answer the timeout code itself: it is still its own error, not our timeout.
    [
      'the server answered a timeout code',
      new McpError(ErrorCode.RequestTimeout, 'x', new McpServerErrorData(undefined)),
      'MCP_TOOL_FAILED',
    ],
    [
      'our timeout',
      new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: 5 }),
      'MCP_TIMEOUT',
    ],
    [
      'the connection closed',
      new McpError(ErrorCode.ConnectionClosed, 'Connection closed'),
      'MCP_SERVER_UNAVAILABLE',
    ],
    [
      'the output schema check',
      new McpError(ErrorCode.InvalidParams, 'Structured content does not match'),
      'MCP_BAD_RESPONSE',
    ],
    ['a result that is not a tool result', zodError, 'MCP_BAD_RESPONSE'],
    [
      'a write to a dead process',
      new Error('the MCP server process is not running'),
      'MCP_SERVER_UNAVAILABLE',
    ],
    ['anything else', 'boom', 'MCP_SERVER_UNAVAILABLE'],
  ])('%s', (_name, error, code) => {
    expect(classifyMcpError(error).code).toBe(code);
  });
});
