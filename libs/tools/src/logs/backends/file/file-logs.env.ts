import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { IsInt, IsISO8601, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';
import type { EnvSource } from '../../../backends/backend-registry';
import type { FileLogSourceConfig } from '../../file-log-source';
import { isValidTimeZone } from '../../formats';
import { LogFileRule, parseFileRules, parseTopicGlobs } from '../../log-files';
import { DEFAULT_MAX_LINE_BYTES } from '../../log-line-reader';
import { defaultScanWorkers } from '../../log-scan-pool';

/** The keys of LOG_BACKEND=jsonl: a directory of log files, each read in its own format (docs/logs.md). */
@EnvSection('tools', 'Log backend: jsonl (a logs directory)')
export class FileLogsEnv {
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
}

/** The FILE source's settings from the environment; the evidence byte budget comes from the harness. */
export type FileLogsConfig = Omit<FileLogSourceConfig, 'maxRawBytes'> & {
  scanWorkers: number;
  now: Date | null;
};

const RETIRED_FIELD_KEYS = [
  ['LOGS_JSONL_TIMESTAMP_FIELD', 'timestamp_field'],
  ['LOGS_JSONL_LEVEL_FIELD', 'level_field'],
  ['LOGS_JSONL_SERVICE_FIELD', 'service_field'],
  ['LOGS_JSONL_MESSAGE_FIELD', 'message_field'],
] as const;

/** The file rules: LOGS_FILE_RULES first (they name more), then the LOGS_JSONL_TOPICS topic rules. */
export function logRulesOf(env: FileLogsEnv): { rules: LogFileRule[]; problems: string[] } {
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

/** The jsonl backend's settings; relations single-key rules cannot express fail here, naming the key. */
export function fileLogsConfigOf(env: FileLogsEnv): FileLogsConfig {
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
    directory,
    rules,
    timeZone: env.LOGS_TIME_ZONE,
    maxMatches: env.LOGS_JSONL_MAX_MATCHES,
    maxLineBytes: env.LOGS_MAX_LINE_BYTES,
    scanWorkers: env.LOGS_SCAN_WORKERS ?? defaultScanWorkers(availableParallelism()),
    now: env.LOGS_JSONL_NOW ? new Date(env.LOGS_JSONL_NOW) : null,
  };
}

export function readFileLogsConfig(source: EnvSource): FileLogsConfig {
  return fileLogsConfigOf(validateEnv(FileLogsEnv, source));
}
