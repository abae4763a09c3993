export { TraceModule } from './trace.module';
export { databaseConfig, DatabaseEnv } from './config/database.config';
export type { DatabaseConfig } from './config/database.config';
export { buildDataSourceOptions } from './database/data-source-options';
export { INTENTS, RUN_STATUSES } from './entities/diagnosis-run.entity';
export type { Intent, PublishedResult, RunStatus } from './entities/diagnosis-run.entity';
