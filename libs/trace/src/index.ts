export { TraceModule } from './trace.module';
export { databaseConfig, DatabaseEnv } from './config/database.config';
export type { DatabaseConfig } from './config/database.config';
export { buildDataSourceOptions } from './database/data-source-options';
export { withMigrationLock } from './database/migration-lock';
export { cutText, wellFormed } from './database/text-bounds';
export { PINNED_SQL_MODE, pinConnection, pinPoolConnections } from './database/connection-pin';
export type { SessionPin } from './database/connection-pin';
export { classifyDatabaseError, describeDatabaseError } from './database/database-errors';
export type { DatabaseFailure } from './database/database-errors';
export type { PublishedResult, RunStatus } from './entities/diagnosis-run.entity';
export { RunRepository } from './repositories/run.repository';
export { ALERT_SESSION_OWNER, AlertGroupRepository } from './repositories/alert-group.repository';
export type { AlertDecision, AlertNotice, AlertPolicy } from './repositories/alert-group.repository';
export type { DiagnosisRun, FinishRun } from './repositories/run.repository';
export { AgentStepRepository } from './repositories/agent-step.repository';
export { ToolInvocationRepository } from './repositories/tool-invocation.repository';
export { TimelineRepository } from './repositories/timeline.repository';
export { RunJournal } from './repositories/run-journal';
export type {
  ModelStepRecord,
  ReasoningAuditRecord,
  TimelinePhase,
  ToolInvocationRecord,
} from './repositories/run-journal';
export { RunJournalRepository } from './repositories/run-journal.repository';
export { NotificationDeliveryRepository } from './repositories/notification-delivery.repository';
export type {
  DeliveryClaim,
  DeliveryResult,
  NotificationDelivery,
  ResumableDelivery,
  TakeoverAges,
} from './repositories/notification-delivery.repository';
export { KnowledgeRepository } from './repositories/knowledge.repository';
export type {
  DocumentPage,
  DocumentPosition,
  KnowledgeChunk,
  KnowledgeChunkText,
  KnowledgeDocument,
} from './repositories/knowledge.repository';
export { traceConfig } from './config/trace.config';
export type { TraceConfig } from './config/trace.config';
export { describePurge, PURGED_TABLES, RetentionService } from './retention/retention.service';
export type { PurgedTable, PurgeResult } from './retention/retention.service';
export { RetentionSchedulerModule } from './retention/retention-scheduler.module';
export { inspectServiceDatabase } from './database/service-database-inspection';
export type { ServiceDatabaseState } from './database/service-database-inspection';
// Keyset cursors of every paged list (sessions, runs, documents): one encoding, one validation.
export { decodePosition, encodePosition } from './api/page-cursor';
