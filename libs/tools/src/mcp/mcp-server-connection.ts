import { Logger } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolFailure } from '@app/harness';
import type { McpServerConfig } from './mcp-tools.config';
import type { McpToolFailureCode } from './mcp-evidence-tool.codes';
import { classifyMcpError } from './mcp-failure';
import { BoundedHttpTransport, BoundedStdioTransport } from './mcp-transports';

const SAFE_MESSAGES = {
  MCP_SERVER_UNAVAILABLE: 'The MCP server is unavailable.',
  MCP_TIMEOUT: 'The MCP server did not answer in time.',
  INVALID_ARGUMENTS: 'The MCP server refused the arguments.',
  MCP_TOOL_FAILED: 'The MCP tool failed.',
  MCP_TOOL_ERROR: 'The MCP tool reported an error for these arguments.',
  MCP_PARSE_ERROR: 'The MCP server sent an answer that is not valid JSON.',
  MCP_BAD_RESPONSE: 'The MCP server sent an answer in an unexpected shape.',
  MCP_RESULT_TOO_LARGE: 'The MCP server answer is too large; narrow the arguments.',
} as const satisfies Record<McpToolFailureCode, string>;

const failure = (code: McpToolFailureCode) => new ToolFailure<McpToolFailureCode>(code, SAFE_MESSAGES[code]);

export interface McpConnectionLimits {
  connectTimeoutMs: number;
  reconnectIntervalMs: number;
  /** The largest single answer read from a server; more is refused while reading, never buffered. */
  maxResponseBytes: number;
}

/**
 * One configured MCP server: connects at start-up, answers tool calls under the call's signal and the
 * server's timeout, and when the server vanishes (process exit, HTTP connection refused) answers
 * MCP_SERVER_UNAVAILABLE. A later call reconnects once, no more often than the reconnect interval.
 * Both transports are our own (mcp-transports.ts): bounded in bytes and time, each failure classified.
 */
export class McpServerConnection {
  private client: Client | null = null;
  private lastAttempt = 0;
  private readonly logger: Logger;

  constructor(
    readonly config: McpServerConfig,
    private readonly limits: McpConnectionLimits,
  ) {
    this.logger = new Logger(`McpServer ${config.id}`);
  }

  private transport(): Transport {
    const transport = this.config.transport;
    const log = (message: string) => this.logger.warn(`MCP server ${this.config.id}: ${message}`);
    if (transport.kind === 'http')
      return new BoundedHttpTransport(
        { url: transport.url, headers: transport.headers, requestTimeoutMs: this.config.timeoutMs },
        this.limits.maxResponseBytes,
        log,
      );
    // Only the SDK's default variables (PATH, HOME, …) and the configured ones: never the service's secrets.
    return new BoundedStdioTransport(
      {
        command: transport.command,
        args: transport.args,
        cwd: transport.cwd,
        env: { ...getDefaultEnvironment(), ...transport.env },
      },
      this.limits.maxResponseBytes,
      log,
    );
  }

  /**
   * Connects and lists the server's tools; null (with a log line naming the server) when it cannot.
   * A reconnect made for a call is bounded by that call: its signal and what is left of its time.
   */
  async connect(call?: { signal: AbortSignal; timeoutMs: number }): Promise<Tool[] | null> {
    this.lastAttempt = Date.now();
    const deadline = Date.now() + Math.min(this.limits.connectTimeoutMs, call?.timeoutMs ?? Infinity);
    const options = () => ({ signal: call?.signal, timeout: Math.max(1, deadline - Date.now()) });
    const client = new Client({ name: 'superbiz-diagnosis-agent', version: '1' });
    try {
      await client.connect(this.transport(), options());
      const { tools } = await client.listTools(undefined, options());
      client.onclose = () => {
        if (this.client === client) {
          this.client = null;
          this.lastAttempt = Date.now();
          this.logger.warn(
            `MCP server ${this.config.id}: connection closed; its tools answer MCP_SERVER_UNAVAILABLE until it reconnects`,
          );
        }
      };
      this.client = client;
      return tools;
    } catch (error) {
      this.logger.error(`MCP server ${this.config.id}: cannot connect (${classifyMcpError(error).detail})`);
      // Not awaited: ending a stdio process may take seconds (stdin, SIGTERM, SIGKILL), none of them the call's.
      void client.close().catch(() => undefined);
      return null;
    }
  }

  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const started = Date.now();
    let client = this.client;
    if (!client) {
      const reconnect =
        Date.now() - this.lastAttempt >= this.limits.reconnectIntervalMs &&
        (await this.connect({ signal, timeoutMs: this.config.timeoutMs }));
      if (signal.aborted) throw signal.reason;
      if (!reconnect) {
        this.logger.warn(`MCP server ${this.config.id}: tool ${name} not called, the server is unavailable`);
        throw failure('MCP_SERVER_UNAVAILABLE');
      }
      client = this.client!;
    }
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        signal,
        // The server's timeout covers the whole call, a reconnect included.
        timeout: Math.max(1, this.config.timeoutMs - (Date.now() - started)),
      });
      return result as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const { code, detail } = classifyMcpError(error);
      this.logger.warn(`MCP server ${this.config.id}: tool ${name} failed with ${code} (${detail})`);
      throw failure(code);
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => undefined);
  }
}
