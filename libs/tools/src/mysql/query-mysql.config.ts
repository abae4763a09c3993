import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { EnvSection, validateEnv } from '@app/config';

const KB = 1024;
const MB = 1024 * KB;

/** query_mysql's execution and projection limits (the key names keep their published HARNESS_ prefix). */
@EnvSection('tools', 'query_mysql')
export class QueryMysqlEnv {
  @IsInt() @Min(1) @Max(10_000) HARNESS_MYSQL_MAX_ROWS: number = 50;
  @IsInt() @Min(16) @Max(100_000) HARNESS_MYSQL_MAX_CELL_CHARS: number = 256;
  @IsInt() @Min(1 * KB) @Max(16 * MB) HARNESS_MYSQL_MAX_TOTAL_BYTES: number = 16 * KB;
  @IsInt() @Min(100) @Max(600_000) HARNESS_MYSQL_QUERY_TIMEOUT_MS: number = 5000;
  /** Raw bytes read from the server per call; past it the statement is killed while the rows stream in. */
  @IsInt() @Min(1 * KB) @Max(64 * MB) HARNESS_MYSQL_MAX_RESULT_BYTES: number = 1 * MB;
  /** How often the business data sources are re-inspected for /health; 0 checks at start-up only. */
  @IsInt() @Min(0) @Max(86_400_000) MYSQL_TOOLS_CHECK_INTERVAL_MS: number = 300_000;
}

export const queryMysqlConfig = registerAs('queryMysql', () => {
  const env = validateEnv(QueryMysqlEnv);
  return {
    maxRows: env.HARNESS_MYSQL_MAX_ROWS,
    maxCellChars: env.HARNESS_MYSQL_MAX_CELL_CHARS,
    maxTotalBytes: env.HARNESS_MYSQL_MAX_TOTAL_BYTES,
    queryTimeoutMs: env.HARNESS_MYSQL_QUERY_TIMEOUT_MS,
    maxResultBytes: env.HARNESS_MYSQL_MAX_RESULT_BYTES,
    checkIntervalMs: env.MYSQL_TOOLS_CHECK_INTERVAL_MS,
  };
});
export type QueryMysqlConfig = ConfigType<typeof queryMysqlConfig>;
