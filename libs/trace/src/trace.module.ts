import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MetricsModule } from '@app/metrics';
import { SessionsController } from './api/sessions.controller';
import { TraceController } from './api/trace.controller';
import { AuditCipher } from './audit/audit-cipher';
import { databaseConfig, DatabaseConfig } from './config/database.config';
import { traceConfig, TraceConfig } from './config/trace.config';
import {
  ADMISSION_DATA_SOURCE,
  buildAdmissionDataSourceOptions,
  buildDataSourceOptions,
  openServiceDataSource,
} from './database/data-source-options';
import { TRACE_ENTITIES } from './entities';
import { RetentionService } from './retention/retention.service';
import { AgentStepRepository, AUDIT_CIPHER } from './repositories/agent-step.repository';
import { RunOwner } from './repositories/run-owner';
import { AlertGroupRepository } from './repositories/alert-group.repository';
import { RunRepository } from './repositories/run.repository';
import { RunJournalRepository } from './repositories/run-journal.repository';
import { KnowledgeRepository } from './repositories/knowledge.repository';
import { NotificationDeliveryRepository } from './repositories/notification-delivery.repository';
import { TimelineRepository } from './repositories/timeline.repository';
import { ToolInvocationRepository } from './repositories/tool-invocation.repository';

const REPOSITORIES = [
  RunRepository,
  AlertGroupRepository,
  RunJournalRepository,
  AgentStepRepository,
  ToolInvocationRepository,
  TimelineRepository,
  KnowledgeRepository,
  NotificationDeliveryRepository,
];

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      imports: [ConfigModule.forFeature(databaseConfig)],
      inject: [databaseConfig.KEY],
      useFactory: (config: DatabaseConfig) => ({
        ...buildDataSourceOptions(config),
        // A start-up that cannot reach MySQL fails at once with the driver's message: no hidden retries.
        retryAttempts: 0,
      }),
      // The factory only receives the options; the config is read again (same validated env) for the lock.
      dataSourceFactory: (options) => {
        if (!options) throw new Error('the service DataSource has no options');
        return openServiceDataSource(options, databaseConfig());
      },
    }),
    TypeOrmModule.forRootAsync({
      name: ADMISSION_DATA_SOURCE,
      imports: [ConfigModule.forFeature(databaseConfig)],
      inject: [databaseConfig.KEY],
      useFactory: (config: DatabaseConfig) => ({
        ...buildAdmissionDataSourceOptions(config),
        retryAttempts: 0,
      }),
    }),
    TypeOrmModule.forFeature(TRACE_ENTITIES),
    MetricsModule,
    ConfigModule.forFeature(traceConfig),
    ConfigModule.forFeature(databaseConfig),
  ],
  controllers: [SessionsController, TraceController],
  providers: [
    ...REPOSITORIES,
    RunOwner,
    RetentionService,
    {
      provide: AUDIT_CIPHER,
      inject: [traceConfig.KEY],
      useFactory: (config: TraceConfig) => new AuditCipher(config.encryptionKeys, config.activeKeyId),
    },
  ],
  exports: [...REPOSITORIES, RetentionService],
})
export class TraceModule {}
