import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { MulterModule } from '@nestjs/platform-express';
import { HarnessConfig, harnessConfig, HarnessModule } from '@app/harness';
import { KnowledgeRepository, TraceModule } from '@app/trace';
import { toolsConfig, ToolsConfig } from './config/tools.config';
import { DocumentsController } from './documents/documents.controller';
import { documentUploadOptions } from './documents/document-file.interceptor';
import { DocumentsService } from './documents/documents.service';
import { EVIDENCE_TOOL_CONFIGS, EvidenceTools } from './evidence-tools';
import { KnowledgeSearchPort } from './knowledge/knowledge-search.port';
import { LogSourcePort } from './logs/log-source.port';
import { McpToolsModule } from './mcp/mcp-tools.module';
import { QueryMetricsModule } from './metrics/query-metrics.module';
import { MysqlQueryExecutor } from './mysql/mysql-query-executor';

@Module({
  imports: [
    ConfigModule.forFeature(toolsConfig),
    ConfigModule.forFeature(harnessConfig),
    ...EVIDENCE_TOOL_CONFIGS.map((config) => ConfigModule.forFeature(config)),
    HarnessModule,
    TraceModule,
    QueryMetricsModule,
    McpToolsModule,
    MulterModule.registerAsync({
      imports: [ConfigModule.forFeature(toolsConfig)],
      inject: [toolsConfig.KEY],
      // The same options the upload routes' DocumentFileInterceptor uses (one file, few short fields).
      useFactory: documentUploadOptions,
    }),
  ],
  controllers: [DocumentsController],
  providers: [
    {
      provide: KnowledgeSearchPort,
      inject: [toolsConfig.KEY, KnowledgeRepository],
      useFactory: (config: ToolsConfig, knowledge: KnowledgeRepository) =>
        config.knowledge.create({ knowledge }),
    },
    {
      provide: LogSourcePort,
      inject: [toolsConfig.KEY, harnessConfig.KEY],
      useFactory: (config: ToolsConfig, harness: HarnessConfig): LogSourcePort | null =>
        config.logs.create({ evidence: harness.evidence }),
    },
    MysqlQueryExecutor,
    DocumentsService,
    EvidenceTools,
  ],
  exports: [EvidenceTools, KnowledgeSearchPort, MysqlQueryExecutor, DocumentsService],
})
export class ToolsModule {}
