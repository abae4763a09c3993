import { ConfigType, registerAs } from '@nestjs/config';
import { IsIn, IsInt, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { validateEnv } from '@app/config';
import { DatabaseEnv } from '@app/trace';
import { loadMysqlToolsConfig, refuseServiceDatabase } from '../mysql/mysql-tools-config';

export class ToolsEnv {
  /** The separate YAML allowlist of business datasources for query_mysql (seed §9.1). */
  @IsString() @MinLength(1) MYSQL_TOOLS_CONFIG: string = 'config/mysql-tools.yaml';

  /** Knowledge search backend: the in-process BM25 index over MySQL, or the py-rag HTTP service. */
  @IsIn(['embedded', 'pyrag']) KNOWLEDGE_BACKEND: 'embedded' | 'pyrag' = 'embedded';

  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  PYRAG_BASE_URL: string = 'http://127.0.0.1:8000';

  @IsIn(['hybrid', 'semantic']) PYRAG_SEARCH_MODE: 'hybrid' | 'semantic' = 'hybrid';
  @IsInt() @Min(100) @Max(120_000) PYRAG_TIMEOUT_MS: number = 5000;

  /** Where uploaded originals are kept (file names are generated ids, never the uploader's). */
  @IsString() @MinLength(1) DOCUMENTS_DIR: string = 'var/documents';
  @IsInt() @Min(1024) @Max(50 * 1024 * 1024) DOCUMENTS_MAX_BYTES: number = 2 * 1024 * 1024;
}

export const toolsConfig = registerAs('tools', () => {
  const env = validateEnv(ToolsEnv);
  const mysqlDataSources = loadMysqlToolsConfig(env.MYSQL_TOOLS_CONFIG);
  const database = validateEnv(DatabaseEnv);
  refuseServiceDatabase(
    mysqlDataSources,
    { host: database.DB_HOST, port: database.DB_PORT, database: database.DB_NAME },
    env.MYSQL_TOOLS_CONFIG,
  );
  return {
    knowledgeBackend: env.KNOWLEDGE_BACKEND,
    pyrag: { baseUrl: env.PYRAG_BASE_URL, mode: env.PYRAG_SEARCH_MODE, timeoutMs: env.PYRAG_TIMEOUT_MS },
    documents: { directory: env.DOCUMENTS_DIR, maxBytes: env.DOCUMENTS_MAX_BYTES },
    mysqlDataSources,
  };
});
export type ToolsConfig = ConfigType<typeof toolsConfig>;
