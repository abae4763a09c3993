import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';
import { DatabaseEnv } from '@app/trace';
import { configureKnowledgeBackend } from '../knowledge/knowledge-backends';
import { configureLogBackend } from '../logs/log-backends';
import { loadMysqlToolsConfig, refuseServiceDatabase } from '../mysql/mysql-tools-config';

@EnvSection('tools', 'Tools and documents')
export class ToolsEnv {
  /** The separate YAML allowlist of business datasources for query_mysql. */
  @IsString() @MinLength(1) MYSQL_TOOLS_CONFIG: string = 'config/mysql-tools.yaml';

  /** Where uploaded originals are kept (file names are generated ids, never the uploader's). */
  @IsString() @MinLength(1) DOCUMENTS_DIR: string = 'var/documents';
  @IsInt() @Min(1024) @Max(50 * 1024 * 1024) DOCUMENTS_MAX_BYTES: number = 2 * 1024 * 1024;
}

export const toolsConfig = registerAs('tools', () => {
  // Every slice is read before any throws, so one error names every bad key (not only the first slice's).
  const problems: string[] = [];
  const attempt = <T>(read: () => T): T | null => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ConfigValidationError)) throw error;
      problems.push(...error.problems);
      return null;
    }
  };
  const env = attempt(() => validateEnv(ToolsEnv));
  const knowledge = attempt(() => configureKnowledgeBackend());
  const logs = attempt(() => configureLogBackend());
  if (env === null || knowledge === null || logs === null) throw new ConfigValidationError(problems);
  const mysqlDataSources = loadMysqlToolsConfig(env.MYSQL_TOOLS_CONFIG);
  const database = validateEnv(DatabaseEnv);
  refuseServiceDatabase(
    mysqlDataSources,
    { host: database.DB_HOST, port: database.DB_PORT, database: database.DB_NAME },
    env.MYSQL_TOOLS_CONFIG,
  );
  return {
    /** The KNOWLEDGE_BACKEND selected (knowledge/knowledge-backends.ts). */
    knowledge,
    documents: { directory: env.DOCUMENTS_DIR, maxBytes: env.DOCUMENTS_MAX_BYTES },
    mysqlDataSources,
    /** The LOG_BACKEND selected (logs/log-backends.ts). */
    logs,
  };
});
export type ToolsConfig = ConfigType<typeof toolsConfig>;
