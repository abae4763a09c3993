import { Inject, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { HarnessModule, ToolCatalog } from '@app/harness';
import { argumentSchemaOf, isMarkedReadOnly, mcpEvidenceTool } from './mcp-evidence-tool';
import { McpServerConnection } from './mcp-server-connection';
import { mcpToolsConfig, McpToolsConfig } from './mcp-tools.config';

/**
 * Connects the configured MCP servers at start-up and registers each allowlisted, read-only tool they
 * list as an evidence tool. A server that cannot be reached, a tool it does not list, one it marks as
 * writing or whose input schema cannot be read is not offered, each with a log line naming it.
 */
@Module({ imports: [ConfigModule.forFeature(mcpToolsConfig), HarnessModule] })
export class McpToolsModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpToolsModule');
  private readonly connections: McpServerConnection[] = [];

  constructor(
    @Inject(mcpToolsConfig.KEY) private readonly config: McpToolsConfig,
    private readonly catalog: ToolCatalog,
  ) {}

  async onModuleInit(): Promise<void> {
    for (const server of this.config.servers) {
      const connection = new McpServerConnection(server, this.config);
      this.connections.push(connection);
      const listed = await connection.connect();
      if (!listed) {
        this.logger.error(`MCP server ${server.id} unreachable at start-up: its tools are not offered`);
        continue;
      }
      for (const name of server.tools) {
        const tool = listed.find((candidate) => candidate.name === name);
        if (!tool) {
          this.logger.warn(`MCP server ${server.id} does not list the allowlisted tool ${name}: not offered`);
          continue;
        }
        if (!isMarkedReadOnly(tool)) {
          this.logger.error(`MCP server ${server.id} marks ${name} as writing or destructive: not offered`);
          continue;
        }
        try {
          argumentSchemaOf(tool);
        } catch {
          this.logger.error(
            `MCP server ${server.id} tool ${name} has an input schema we cannot read: not offered`,
          );
          continue;
        }
        const definition = mcpEvidenceTool(connection, tool, this.config);
        this.catalog.register(definition);
        this.logger.log(`MCP tool ${definition.name} on (server ${server.id}, tool ${name})`);
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }
}
