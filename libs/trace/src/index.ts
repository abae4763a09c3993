export { TraceModule } from './trace.module';
export { databaseConfig, DatabaseEnv } from './config/database.config';
export type { DatabaseConfig } from './config/database.config';
export { buildDataSourceOptions } from './database/data-source-options';
export { withMigrationLock } from './database/migration-lock';
export { INTENTS, RUN_STATUSES } from './entities/diagnosis-run.entity';
export type { Intent, PublishedResult, RunStatus } from './entities/diagnosis-run.entity';
export { CONTENT_SOURCES } from './entities/agent-reasoning-audit.entity';
export type { ContentSource } from './entities/agent-reasoning-audit.entity';
export type { TraceDetails } from './entities/diagnosis-trace-event.entity';
export { RunRepository } from './repositories/run.repository';
export type { DiagnosisRun, FinishRun, OwnedSession, StartRun } from './repositories/run.repository';
export { AgentStepRepository } from './repositories/agent-step.repository';
export type { ModelStepRecord, ReasoningAuditRecord } from './repositories/agent-step.repository';
export { ToolInvocationRepository } from './repositories/tool-invocation.repository';
export type { ToolInvocationRecord } from './repositories/tool-invocation.repository';
export { TIMELINE_PHASES, TimelineRepository } from './repositories/timeline.repository';
export type { TimelinePhase } from './repositories/timeline.repository';
export { KnowledgeRepository } from './repositories/knowledge.repository';
export type {
  KnowledgeChunk,
  KnowledgeDocument,
  NewKnowledgeChunk,
  NewKnowledgeDocument,
} from './repositories/knowledge.repository';
export { DOCUMENT_STATUSES } from './entities/knowledge-document.entity';
export type { DocumentStatus } from './entities/knowledge-document.entity';
export { traceConfig } from './config/trace.config';
export type { TraceConfig } from './config/trace.config';
export { RetentionService } from './retention/retention.service';
export { RetentionSchedulerModule } from './retention/retention-scheduler.module';
export type { PurgeResult } from './retention/retention.service';
