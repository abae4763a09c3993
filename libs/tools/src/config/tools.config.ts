import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { ConfigType, registerAs } from '@nestjs/config';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  MinLength,
} from 'class-validator';
import { ConfigValidationError, EnvBoolean, EnvSection, validateEnv } from '@app/config';
import { DatabaseEnv } from '@app/trace';
import type { FileLogSourceConfig } from '../logs/file-log-source';
import { isValidTimeZone } from '../logs/formats';
import { LogFileRule, parseFileRules, parseTopicGlobs } from '../logs/log-files';
import { DEFAULT_MAX_LINE_BYTES } from '../logs/log-line-reader';
import { defaultScanWorkers } from '../logs/log-scan-pool';
import { loadMysqlToolsConfig, refuseServiceDatabase } from '../mysql/mysql-tools-config';

@EnvSection('tools', 'Tools, documents and log sources')
export class ToolsEnv {
  /** The separate YAML allowlist of business datasources for query_mysql. */
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

  /** Where query_logs reads: the files of a logs directory, the generated MOCK dataset (demo only), or no log tool. */
  @IsIn(['jsonl', 'mock', 'none']) LOG_BACKEND: 'jsonl' | 'mock' | 'none' = 'none';
  @IsOptional() @IsString() LOGS_JSONL_DIR?: string;
  /** Topic rules by file glob; files no rule names get their topic from their format or name (docs/logs.md). */
  @IsString()
  @MinLength(1)
  LOGS_JSONL_TOPICS: string = 'APPLICATION=application*.jsonl,ACCESS=access*.jsonl,DATABASE=database*.jsonl';
  /** Per file glob: topic, format, service, time_zone, *_field (docs/logs.md); never global. */
  @IsOptional() @IsString() LOGS_FILE_RULES?: string;
  /** The zone of timestamps written without one, for files no rule gives a time_zone. */
  @IsString() @MinLength(1) LOGS_TIME_ZONE: string = 'UTC';
  /** Retired: a global field name broke every file of another shape; refused with the per-file replacement. */
  @IsOptional() @IsString() LOGS_JSONL_TIMESTAMP_FIELD?: string;
  @IsOptional() @IsString() LOGS_JSONL_LEVEL_FIELD?: string;
  @IsOptional() @IsString() LOGS_JSONL_SERVICE_FIELD?: string;
  @IsOptional() @IsString() LOGS_JSONL_MESSAGE_FIELD?: string;
  /** A fixed "now" for the time window, to replay an exported incident; unset = the real clock. */
  @IsOptional() @IsISO8601({ strict: true }) LOGS_JSONL_NOW?: string;
  /** At most this many matches per query_logs result; the evidence record's size may stop it sooner. */
  @IsInt() @Min(1) @Max(1_000_000) LOGS_JSONL_MAX_MATCHES: number = 20_000;
  /** Log lines longer than this are skipped, counted and named, never read into memory whole. */
  @IsInt() @Min(4096) @Max(256 * 1024 * 1024) LOGS_MAX_LINE_BYTES: number = DEFAULT_MAX_LINE_BYTES;
  /** Worker threads scanning log files (default two, one on a one-core machine). */
  @IsOptional() @IsInt() @Min(1) @Max(32) LOGS_SCAN_WORKERS?: number;

  /** Read here only to warn that MOCK logs are on outside the demo. */
  @EnvBoolean() @IsBoolean() DEMO_MODE: boolean = false;
}

/** The FILE source's settings from the environment; the evidence byte budget comes from the harness. */
export type FileLogsEnvConfig = Omit<FileLogSourceConfig, 'maxRawBytes'> & { scanWorkers: number };

export type LogsConfig =
  | { backend: 'none' | 'mock'; warnMockOutsideDemo: boolean }
  | { backend: 'jsonl'; jsonl: FileLogsEnvConfig; now: Date | null };

const RETIRED_FIELD_KEYS = [
  ['LOGS_JSONL_TIMESTAMP_FIELD', 'timestamp_field'],
  ['LOGS_JSONL_LEVEL_FIELD', 'level_field'],
  ['LOGS_JSONL_SERVICE_FIELD', 'service_field'],
  ['LOGS_JSONL_MESSAGE_FIELD', 'message_field'],
] as const;

/** The file rules: LOGS_FILE_RULES first (they name more), then the LOGS_JSONL_TOPICS topic rules. */
export function logRulesOf(env: ToolsEnv): { rules: LogFileRule[]; problems: string[] } {
  const problems: string[] = [];
  const rules: LogFileRule[] = [];
  for (const [key, rule] of RETIRED_FIELD_KEYS) {
    if (env[key] !== undefined) {
      problems.push(
        `${key} applied to every file and is retired; name the files instead: LOGS_FILE_RULES="<glob>: ${rule}=${env[key]}"`,
      );
    }
  }
  try {
    if (env.LOGS_FILE_RULES) rules.push(...parseFileRules(env.LOGS_FILE_RULES));
  } catch (error) {
    problems.push(`LOGS_FILE_RULES: ${(error as Error).message}`);
  }
  try {
    rules.push(...parseTopicGlobs(env.LOGS_JSONL_TOPICS));
  } catch (error) {
    problems.push(`LOGS_JSONL_TOPICS: ${(error as Error).message}`);
  }
  if (!isValidTimeZone(env.LOGS_TIME_ZONE)) {
    problems.push(
      `LOGS_TIME_ZONE: ${env.LOGS_TIME_ZONE} is not an IANA zone (Asia/Shanghai) or ±HH:MM offset`,
    );
  }
  return { rules, problems };
}

/** The log backend slice; relations single-key rules cannot express fail here, naming the key. */
export function logsConfigOf(env: ToolsEnv): LogsConfig {
  if (env.LOG_BACKEND !== 'jsonl') {
    return { backend: env.LOG_BACKEND, warnMockOutsideDemo: env.LOG_BACKEND === 'mock' && !env.DEMO_MODE };
  }
  const directory = env.LOGS_JSONL_DIR ? resolve(env.LOGS_JSONL_DIR) : '';
  let isDirectory = false;
  try {
    isDirectory = directory !== '' && statSync(directory).isDirectory();
  } catch {
    isDirectory = false;
  }
  const { rules, problems } = logRulesOf(env);
  if (!isDirectory) problems.unshift('LOGS_JSONL_DIR must name an existing directory when LOG_BACKEND=jsonl');
  if (problems.length > 0) throw new ConfigValidationError(problems);
  return {
    backend: 'jsonl',
    jsonl: {
      directory,
      rules,
      timeZone: env.LOGS_TIME_ZONE,
      maxMatches: env.LOGS_JSONL_MAX_MATCHES,
      maxLineBytes: env.LOGS_MAX_LINE_BYTES,
      scanWorkers: env.LOGS_SCAN_WORKERS ?? defaultScanWorkers(availableParallelism()),
    },
    now: env.LOGS_JSONL_NOW ? new Date(env.LOGS_JSONL_NOW) : null,
  };
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
    logs: logsConfigOf(env),
  };
});
export type ToolsConfig = ConfigType<typeof toolsConfig>;
