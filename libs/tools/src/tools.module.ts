import { Logger, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { MulterModule } from '@nestjs/platform-express';
import { HarnessConfig, harnessConfig, HarnessModule } from '@app/harness';
import { KnowledgeRepository, TraceModule } from '@app/trace';
import { toolsConfig, ToolsConfig } from './config/tools.config';
import { DocumentsController } from './documents/documents.controller';
import { documentUploadOptions } from './documents/document-file.interceptor';
import { DocumentsService } from './documents/documents.service';
import { EvidenceTools } from './evidence-tools';
import { EmbeddedKnowledgeSearch } from './knowledge/embedded-knowledge-search';
import { KnowledgeSearchPort } from './knowledge/knowledge-search.port';
import { lookupKnowledgeConfig } from './knowledge/lookup-knowledge.config';
import { PyRagKnowledgeSearch } from './knowledge/pyrag-knowledge-search';
import { LogSourcePort } from './logs/log-source.port';
import { FileLogSource, rawBytesOf } from './logs/file-log-source';
import type { LogDirectoryConfig } from './logs/log-files';
import { LogScanPool } from './logs/log-scan-pool';
import { describeLogFile, inspectLogDirectory, logFileWarning } from './logs/log-file-inspection';
import { MockLogSource } from './logs/mock-log-source';
import { queryLogsConfig } from './logs/query-logs.config';
import { McpToolsModule } from './mcp/mcp-tools.module';
import { QueryMetricsModule } from './metrics/query-metrics.module';
import { MysqlQueryExecutor } from './mysql/mysql-query-executor';
import { queryMysqlConfig } from './mysql/query-mysql.config';

const STARTUP_SAMPLE_LINES = 200;

/**
 * Samples every file of the logs directory at start-up: one line per file (format, topic, services,
 * time range, unreadable share), a warning naming each file that cannot be read (path, reason) or holds
 * unreadable lines, so an export in an unexpected format never only answers "nothing in the logs".
 */
async function describeLogFiles(config: LogDirectoryConfig & { maxLineBytes: number }): Promise<void> {
  const logger = new Logger('FileLogSource');
  try {
    const { reports, problems } = await inspectLogDirectory(
      config,
      STARTUP_SAMPLE_LINES,
      config.maxLineBytes,
    );
    if (reports.length === 0)
      logger.warn(`no readable log file in ${config.directory}: query_logs finds nothing`);
    for (const report of reports) {
      logger.log(describeLogFile(report));
      const warning = logFileWarning(report);
      if (warning) logger.warn(warning);
    }
    for (const problem of problems) {
      logger.warn(`log file ${problem.file} in ${config.directory} is not searched: ${problem.reason}`);
    }
  } catch (error) {
    logger.warn(
      `could not list the log files in ${config.directory}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

@Module({
  imports: [
    ConfigModule.forFeature(toolsConfig),
    ConfigModule.forFeature(harnessConfig),
    ConfigModule.forFeature(lookupKnowledgeConfig),
    ConfigModule.forFeature(queryLogsConfig),
    ConfigModule.forFeature(queryMysqlConfig),
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
        config.knowledgeBackend === 'pyrag'
          ? new PyRagKnowledgeSearch(config.pyrag)
          : new EmbeddedKnowledgeSearch(knowledge),
    },
    {
      provide: LogSourcePort,
      inject: [toolsConfig.KEY, harnessConfig.KEY],
      useFactory: (config: ToolsConfig, harness: HarnessConfig): LogSourcePort | null => {
        const logs = config.logs;
        switch (logs.backend) {
          case 'jsonl':
            void describeLogFiles(logs.jsonl);
            return new FileLogSource(
              { ...logs.jsonl, maxRawBytes: rawBytesOf(harness.evidence) },
              new LogScanPool(logs.jsonl.scanWorkers),
            );
          case 'mock':
            if (logs.warnMockOutsideDemo) {
              new Logger('ToolsModule').warn(
                'LOG_BACKEND=mock outside DEMO_MODE: query_logs answers from generated sample logs, not your systems',
              );
            }
            return new MockLogSource();
          case 'none':
            return null;
        }
      },
    },
    MysqlQueryExecutor,
    DocumentsService,
    EvidenceTools,
  ],
  exports: [EvidenceTools, KnowledgeSearchPort, MysqlQueryExecutor, DocumentsService],
})
export class ToolsModule {}
