import { Logger } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResult, ErrorCode, McpError, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolFailure } from '@app/harness';
import type { McpServerConfig } from './mcp-tools.config';
import type { McpToolFailureCode } from './mcp-evidence-tool.codes';

const unavailable = () =>
  new ToolFailure<McpToolFailureCode>('MCP_SERVER_UNAVAILABLE', 'The MCP server is unavailable.');
const timedOut = () =>
  new ToolFailure<McpToolFailureCode>('MCP_TIMEOUT', 'The MCP server did not answer in time.');

/**
 * One configured MCP server: connects at start-up, answers tool calls under the call's signal and the
 * server's timeout, and when the server vanishes (process exit, HTTP connection refused) answers
 * MCP_SERVER_UNAVAILABLE. A later call reconnects once, no more often than the reconnect interval.
 */
export class McpServerConnection {
  private client: Client | null = null;
  private lastAttempt = 0;
  private readonly logger: Logger;

  constructor(
    readonly config: McpServerConfig,
    private readonly limits: { connectTimeoutMs: number; reconnectIntervalMs: number },
  ) {
    this.logger = new Logger(`McpServer ${config.id}`);
  }

  private transport(): Transport {
    const transport = this.config.transport;
    if (transport.kind === 'http')
      return new StreamableHTTPClientTransport(transport.url, {
        requestInit: { headers: transport.headers },
      });
    // Only the SDK's default variables (PATH, HOME, …) and the configured ones: never the service's secrets.
    return new StdioClientTransport({
      command: transport.command,
      args: transport.args,
      cwd: transport.cwd,
      env: { ...getDefaultEnvironment(), ...transport.env },
      stderr: 'ignore',
    });
  }

  /** Connects and lists the server's tools; null (with a log line naming the server) when it cannot. */
  async connect(): Promise<Tool[] | null> {
    this.lastAttempt = Date.now();
    const client = new Client({ name: 'superbiz-diagnosis-agent', version: '1' });
    try {
      await client.connect(this.transport(), { timeout: this.limits.connectTimeoutMs });
      const { tools } = await client.listTools(undefined, { timeout: this.limits.connectTimeoutMs });
      client.onclose = () => {
        if (this.client === client) {
          this.client = null;
          this.lastAttempt = Date.now();
          this.logger.warn(
            'MCP server connection closed; its tools answer MCP_SERVER_UNAVAILABLE until it reconnects',
          );
        }
      };
      this.client = client;
      return tools;
    } catch (error) {
      this.logger.error(`cannot reach the MCP server (${error instanceof Error ? error.name : 'error'})`);
      await client.close().catch(() => undefined);
      return null;
    }
  }

  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    if (!this.client) {
      if (Date.now() - this.lastAttempt < this.limits.reconnectIntervalMs || !(await this.connect()))
        throw unavailable();
    }
    try {
      const result = await this.client!.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: this.config.timeoutMs,
      });
      return result as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) throw timedOut();
      if (error instanceof McpError && error.code === (ErrorCode.InvalidParams as number))
        throw new ToolFailure<McpToolFailureCode>(
          'INVALID_ARGUMENTS',
          'The MCP server refused the arguments.',
        );
      if (error instanceof McpError && error.code !== (ErrorCode.ConnectionClosed as number))
        throw new ToolFailure<McpToolFailureCode>('MCP_TOOL_FAILED', 'The MCP tool failed.');
      this.logger.warn(
        `MCP call failed: the server is unavailable (${error instanceof Error ? error.name : 'error'})`,
      );
      throw unavailable();
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => undefined);
  }
}
