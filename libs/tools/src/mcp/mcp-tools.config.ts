import { readFileSync } from 'node:fs';
import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { z } from 'zod';
import { parseToolConfigFile, resolveEnvReference } from '../config/tool-config-file';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';

const identifier = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,31}$/, 'must be a short identifier');
const envReference = z
  .string()
  .regex(/^\$\{[A-Z_][A-Z0-9_]*\}$/, 'must be an environment reference like ${NAME}, never a literal value');
const toolName = z.string().regex(/^[A-Za-z0-9_.\-/]{1,128}$/, 'must be an MCP tool name');

const serverSchema = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    cwd: z.string().min(1).optional(),
    /** Extra environment for a stdio server; values only as ${ENV} references. */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), envReference).default({}),
    url: z.string().min(1).optional(),
    /** Request headers for a streamable HTTP server (an Authorization token); values only as ${ENV}. */
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/), envReference).default({}),
    'timeout-ms': z.number().int().min(100).max(600_000).default(10_000),
    /** The read-only tools of this server the agent may call; nothing else is offered. */
    tools: z.array(toolName).min(1),
  })
  .refine((server) => (server.command === undefined) !== (server.url === undefined), {
    message: 'give exactly one of command (stdio) or url (streamable HTTP)',
  });
const fileSchema = z.strictObject({
  harness: z.strictObject({ 'mcp-tools': z.strictObject({ servers: z.record(identifier, serverSchema) }) }),
});

export type McpTransportConfig =
  | { kind: 'stdio'; command: string; args: string[]; cwd: string | undefined; env: Record<string, string> }
  | { kind: 'http'; url: URL; headers: Record<string, string> };

export interface McpServerConfig {
  id: string;
  transport: McpTransportConfig;
  timeoutMs: number;
  tools: string[];
}

/** Parses the MCP servers file; `${ENV}` references are resolved from `env`. */
export function parseMcpToolsConfig(
  text: string,
  origin: string,
  env: Record<string, string | undefined> = process.env,
): McpServerConfig[] {
  const file = parseToolConfigFile(text, origin, fileSchema);
  return Object.entries(file.harness['mcp-tools'].servers).map(([id, server]) => {
    const path = `${origin}: harness.mcp-tools.servers.${id}`;
    const resolveAll = (values: Record<string, string>, key: string) =>
      Object.fromEntries(
        Object.entries(values).map(([name, reference]) => [
          name,
          resolveEnvReference(reference, `${path}.${key}.${name}`, env),
        ]),
      );
    let transport: McpTransportConfig;
    if (server.url !== undefined) {
      let url: URL;
      try {
        url = new URL(server.url);
      } catch {
        throw new ConfigValidationError([`${path}.url: must be an http(s) URL`]);
      }
      if (!['http:', 'https:'].includes(url.protocol) || url.username || url.password)
        throw new ConfigValidationError([`${path}.url: must be an http(s) URL without credentials`]);
      transport = { kind: 'http', url, headers: resolveAll(server.headers, 'headers') };
    } else {
      transport = {
        kind: 'stdio',
        command: server.command!,
        args: server.args,
        cwd: server.cwd,
        env: resolveAll(server.env, 'env'),
      };
    }
    return { id, transport, timeoutMs: server['timeout-ms'], tools: [...new Set(server.tools)] };
  });
}

/** MCP servers as evidence tools: off unless MCP_TOOLS_CONFIG names a servers file. */
@EnvSection('tools', 'MCP servers')
export class McpToolsEnv {
  @IsOptional() @IsString() @MinLength(1) MCP_TOOLS_CONFIG?: string;
  @IsInt() @Min(100) @Max(120_000) HARNESS_MCP_CONNECT_TIMEOUT_MS: number = 10_000;
  @IsInt() @Min(0) @Max(3_600_000) HARNESS_MCP_RECONNECT_INTERVAL_MS: number = 30_000;
  @IsInt() @Min(40) @Max(2000) HARNESS_MCP_MAX_DESCRIPTION_CHARS: number = 300;
  @IsInt() @Min(200) @Max(200_000) HARNESS_MCP_MAX_RESULT_CHARS: number = 8000;
  @IsInt() @Min(1) @Max(100) HARNESS_MCP_MAX_CONTENT_ITEMS: number = 10;
  /** One answer's bytes as read from the server (the raw response's own Redis cap is 1 MB by default). */
  @IsInt() @Min(1024) @Max(64 * 1024 * 1024) HARNESS_MCP_MAX_RESPONSE_BYTES: number = 1024 * 1024;
}

export const mcpToolsConfig = registerAs('mcpTools', () => {
  const env = validateEnv(McpToolsEnv);
  let servers: McpServerConfig[] = [];
  if (env.MCP_TOOLS_CONFIG) {
    let text: string;
    try {
      text = readFileSync(env.MCP_TOOLS_CONFIG, 'utf8');
    } catch (error) {
      throw new ConfigValidationError([
        `MCP_TOOLS_CONFIG: cannot read ${env.MCP_TOOLS_CONFIG} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      ]);
    }
    servers = parseMcpToolsConfig(text, env.MCP_TOOLS_CONFIG);
  }
  return {
    servers,
    connectTimeoutMs: env.HARNESS_MCP_CONNECT_TIMEOUT_MS,
    reconnectIntervalMs: env.HARNESS_MCP_RECONNECT_INTERVAL_MS,
    maxDescriptionChars: env.HARNESS_MCP_MAX_DESCRIPTION_CHARS,
    maxResultChars: env.HARNESS_MCP_MAX_RESULT_CHARS,
    maxContentItems: env.HARNESS_MCP_MAX_CONTENT_ITEMS,
    maxResponseBytes: env.HARNESS_MCP_MAX_RESPONSE_BYTES,
  };
});
export type McpToolsConfig = ConfigType<typeof mcpToolsConfig>;
