import { readFileSync } from 'node:fs';
import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';
import { NotificationTarget, parseTargetsFile, TargetsFileError } from './notification-targets';

@EnvSection('notify', 'Notifications')
export class NotifyEnv {
  /** The targets file (YAML or JSON, docs/notifications.md); unset: no notifications are configured. */
  @IsOptional() @IsString() NOTIFY_TARGETS_FILE?: string;
  /** The web UI's public address: each message links to its run there. Required with a targets file. */
  @IsOptional() @IsString() NOTIFY_PUBLIC_BASE_URL?: string;
  @IsInt() @Min(1) @Max(10) NOTIFY_MAX_ATTEMPTS: number = 4;
  @IsInt() @Min(10) @Max(60_000) NOTIFY_BACKOFF_BASE_MS: number = 1000;
  @IsInt() @Min(10) @Max(600_000) NOTIFY_BACKOFF_MAX_MS: number = 30_000;
  @IsInt() @Min(100) @Max(120_000) NOTIFY_TIMEOUT_MS: number = 10_000;
  /** How often each replica looks for deliveries a stopped replica left, and alert runs never notified. */
  @IsInt() @Min(1000) @Max(3_600_000) NOTIFY_SWEEP_INTERVAL_MS: number = 30_000;
}

/**
 * Notification settings, the targets file included: read and validated at start-up, so a bad file, a
 * target's bad field or an unset secret variable stops the app with a message naming the target and field.
 */
export const notifyConfig = registerAs('notify', () => loadNotifyConfig(process.env));
export type NotifyConfig = ConfigType<typeof notifyConfig>;

export function loadNotifyConfig(env: Record<string, string | undefined>) {
  const values = validateEnv(NotifyEnv, env);
  const policy = {
    maxAttempts: values.NOTIFY_MAX_ATTEMPTS,
    backoffBaseMs: values.NOTIFY_BACKOFF_BASE_MS,
    backoffMaxMs: values.NOTIFY_BACKOFF_MAX_MS,
    timeoutMs: values.NOTIFY_TIMEOUT_MS,
  };
  if (values.NOTIFY_BACKOFF_MAX_MS < values.NOTIFY_BACKOFF_BASE_MS) {
    throw new ConfigValidationError(['NOTIFY_BACKOFF_MAX_MS must be at least NOTIFY_BACKOFF_BASE_MS']);
  }
  const file = values.NOTIFY_TARGETS_FILE;
  const sweepIntervalMs = values.NOTIFY_SWEEP_INTERVAL_MS;
  if (file === undefined)
    return { targets: [] as NotificationTarget[], publicBaseUrl: null, policy, sweepIntervalMs };
  const base = values.NOTIFY_PUBLIC_BASE_URL;
  if (base === undefined || !isPublicBaseUrl(base)) {
    throw new ConfigValidationError([
      'NOTIFY_PUBLIC_BASE_URL must be the web UI’s http(s) address (no query or fragment) when NOTIFY_TARGETS_FILE is set',
    ]);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigValidationError([`NOTIFY_TARGETS_FILE: cannot read the file (${code})`]);
  }
  try {
    return { targets: parseTargetsFile(text, env), publicBaseUrl: base, policy, sweepIntervalMs };
  } catch (error) {
    if (error instanceof TargetsFileError) {
      throw new ConfigValidationError(error.problems.map((problem) => `NOTIFY_TARGETS_FILE: ${problem}`));
    }
    throw error;
  }
}

function isPublicBaseUrl(value: string): boolean {
  try {
    const url = new URL(value);
    // Slack's <url|text> link syntax ends at `|` or `>`: the base may hold neither (nor a query/fragment).
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      !/[|<>\s]/.test(value)
    );
  } catch {
    return false;
  }
}
