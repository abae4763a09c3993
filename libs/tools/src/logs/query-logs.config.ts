import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';

/** query_logs' projection and time-window limits (the key names keep their published HARNESS_ prefix). */
@EnvSection('tools', 'query_logs')
export class QueryLogsEnv {
  @IsInt() @Min(1) @Max(200) HARNESS_LOGS_MAX_PATTERNS: number = 10;
  @IsInt() @Min(0) @Max(500) HARNESS_LOGS_MAX_EVENTS: number = 10;
  @IsInt() @Min(40) @Max(20_000) HARNESS_LOGS_MAX_MESSAGE_CHARS: number = 300;
  @IsInt() @Min(100) @Max(200_000) HARNESS_LOGS_MAX_TOTAL_CHARS: number = 6000;
  @IsInt() @Min(1) @Max(10_080) HARNESS_LOGS_DEFAULT_LOOKBACK_MINUTES: number = 30;
  @IsInt() @Min(1) @Max(10_080) HARNESS_LOGS_MAX_LOOKBACK_MINUTES: number = 1440;
}

export const queryLogsConfig = registerAs('queryLogs', () => {
  const env = validateEnv(QueryLogsEnv);
  if (env.HARNESS_LOGS_DEFAULT_LOOKBACK_MINUTES > env.HARNESS_LOGS_MAX_LOOKBACK_MINUTES) {
    throw new ConfigValidationError([
      'HARNESS_LOGS_DEFAULT_LOOKBACK_MINUTES must not exceed HARNESS_LOGS_MAX_LOOKBACK_MINUTES',
    ]);
  }
  return {
    maxPatterns: env.HARNESS_LOGS_MAX_PATTERNS,
    maxEvents: env.HARNESS_LOGS_MAX_EVENTS,
    maxMessageChars: env.HARNESS_LOGS_MAX_MESSAGE_CHARS,
    maxTotalChars: env.HARNESS_LOGS_MAX_TOTAL_CHARS,
    defaultLookbackMinutes: env.HARNESS_LOGS_DEFAULT_LOOKBACK_MINUTES,
    maxLookbackMinutes: env.HARNESS_LOGS_MAX_LOOKBACK_MINUTES,
  };
});
export type QueryLogsConfig = ConfigType<typeof queryLogsConfig>;
