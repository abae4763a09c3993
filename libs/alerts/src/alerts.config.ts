import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { EnvSection, validateEnv } from '@app/config';

@EnvSection('alerts', 'Alerts in')
export class AlertsEnv {
  /**
   * No new investigation of an alert group within this many seconds of its last one (repeats are
   * recorded as DUPLICATE_WITHIN_WINDOW). Alertmanager re-sends a group every group_interval/repeat_interval.
   */
  @IsInt() @Min(0) @Max(7 * 24 * 3600) ALERT_DEDUP_WINDOW_SECONDS: number = 1800;
  /** At most this many alert-started runs per clock hour (UTC), across every replica; then HOURLY_CAP_REACHED. */
  @IsInt() @Min(0) @Max(100_000) ALERT_MAX_RUNS_PER_HOUR: number = 20;
  /** The tools' windows end this many minutes after the alert started (or now, if earlier). */
  @IsInt() @Min(0) @Max(24 * 60) ALERT_WINDOW_AFTER_START_MINUTES: number = 15;
}

export function loadAlertsConfig(source: Record<string, string | undefined> = process.env) {
  const env = validateEnv(AlertsEnv, source);
  return {
    dedupWindowMs: env.ALERT_DEDUP_WINDOW_SECONDS * 1000,
    maxRunsPerHour: env.ALERT_MAX_RUNS_PER_HOUR,
    windowAfterStartMinutes: env.ALERT_WINDOW_AFTER_START_MINUTES,
  };
}

export const alertsConfig = registerAs('alerts', () => loadAlertsConfig());
export type AlertsConfig = ConfigType<typeof alertsConfig>;
