import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsISO8601, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';
import { loadMetricsToolsConfig } from './metrics-tools-config';

/** query_metrics: off unless METRICS_TOOLS_CONFIG names an allowlist file; limits under HARNESS_METRICS_*. */
@EnvSection('tools', 'query_metrics')
export class QueryMetricsEnv {
  @IsOptional() @IsString() @MinLength(1) METRICS_TOOLS_CONFIG?: string;
  @IsInt() @Min(1) @Max(10_080) HARNESS_METRICS_DEFAULT_LOOKBACK_MINUTES: number = 60;
  @IsInt() @Min(1) @Max(10_080) HARNESS_METRICS_MAX_LOOKBACK_MINUTES: number = 1440;
  @IsInt() @Min(1) @Max(3600) HARNESS_METRICS_MIN_STEP_SECONDS: number = 15;
  @IsInt() @Min(2) @Max(11_000) HARNESS_METRICS_MAX_POINTS_PER_SERIES: number = 720;
  @IsInt() @Min(1) @Max(10_000) HARNESS_METRICS_MAX_SERIES: number = 50;
  @IsInt() @Min(1) @Max(5_000_000) HARNESS_METRICS_MAX_SAMPLES: number = 50_000;
  @IsInt() @Min(1024) @Max(64 * 1024 * 1024) HARNESS_METRICS_MAX_RESPONSE_BYTES: number = 1024 * 1024;
  @IsInt() @Min(100) @Max(600_000) HARNESS_METRICS_QUERY_TIMEOUT_MS: number = 10_000;
  @IsInt() @Min(1) @Max(200) HARNESS_METRICS_MAX_PROJECTED_SERIES: number = 10;
  @IsInt() @Min(0) @Max(20) HARNESS_METRICS_CHANGE_POINTS: number = 3;
  @IsInt() @Min(0) @Max(200) HARNESS_METRICS_TREND_POINTS: number = 24;
  /** A fixed "now" for the time window, to replay an incident's metrics; unset = the real clock. */
  @IsOptional() @IsISO8601({ strict: true }) METRICS_NOW?: string;
}

export const queryMetricsConfig = registerAs('queryMetrics', () => {
  const env = validateEnv(QueryMetricsEnv);
  if (env.HARNESS_METRICS_DEFAULT_LOOKBACK_MINUTES > env.HARNESS_METRICS_MAX_LOOKBACK_MINUTES) {
    throw new ConfigValidationError([
      'HARNESS_METRICS_DEFAULT_LOOKBACK_MINUTES must not exceed HARNESS_METRICS_MAX_LOOKBACK_MINUTES',
    ]);
  }
  return {
    dataSources: env.METRICS_TOOLS_CONFIG ? loadMetricsToolsConfig(env.METRICS_TOOLS_CONFIG) : [],
    defaultLookbackMinutes: env.HARNESS_METRICS_DEFAULT_LOOKBACK_MINUTES,
    maxLookbackMinutes: env.HARNESS_METRICS_MAX_LOOKBACK_MINUTES,
    minStepSeconds: env.HARNESS_METRICS_MIN_STEP_SECONDS,
    maxPointsPerSeries: env.HARNESS_METRICS_MAX_POINTS_PER_SERIES,
    maxSeries: env.HARNESS_METRICS_MAX_SERIES,
    maxSamples: env.HARNESS_METRICS_MAX_SAMPLES,
    maxResponseBytes: env.HARNESS_METRICS_MAX_RESPONSE_BYTES,
    queryTimeoutMs: env.HARNESS_METRICS_QUERY_TIMEOUT_MS,
    maxProjectedSeries: env.HARNESS_METRICS_MAX_PROJECTED_SERIES,
    changePoints: env.HARNESS_METRICS_CHANGE_POINTS,
    trendPoints: env.HARNESS_METRICS_TREND_POINTS,
    now: env.METRICS_NOW ? new Date(env.METRICS_NOW) : null,
  };
});
export type QueryMetricsConfig = ConfigType<typeof queryMetricsConfig>;
