import { ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsInt, IsString, Max, Min } from 'class-validator';
import { ConfigValidationError, EnvBoolean, EnvSection, validateEnv } from '@app/config';

@EnvSection('trace', 'Trace, audit and retention')
export class TraceEnv {
  /** `keyId:base64(32 bytes)` entries, comma-separated; the active one encrypts, all of them decrypt. */
  @IsString() AUDIT_ENCRYPTION_KEYS: string = '';
  @IsString() AUDIT_ENCRYPTION_ACTIVE_KEY_ID: string = '';
  @EnvBoolean() @IsBoolean() DEMO_MODE: boolean = false;
  /** Reasoning-audit rows older than this are purged (hourly, and by `npm run purge`). */
  @IsInt() @Min(1) @Max(3650) AUDIT_RETENTION_DAYS: number = 30;
  /** Sessions untouched for longer than this are purged with all their runs and trace rows. */
  @IsInt() @Min(1) @Max(3650) TRACE_RETENTION_DAYS: number = 180;
  /** A run still RUNNING after this long was left by a crash or a lost database: it is closed as FAILED/ABANDONED. */
  @IsInt() @Min(5) @Max(1440) RUN_ABANDON_AFTER_MINUTES: number = 30;
  /** A run's owner renews its lease this often; a replica whose lease ran out is gone, and another closes its runs. */
  @IsInt() @Min(200) @Max(60_000) RUN_HEARTBEAT_MS: number = 5000;
  @IsInt() @Min(1000) @Max(600_000) RUN_LEASE_MS: number = 20_000;
}

function parseEncryptionKeys(raw: string): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .forEach((entry, index) => {
      const [id, material] = [entry.slice(0, entry.indexOf(':')), entry.slice(entry.indexOf(':') + 1)];
      const key = Buffer.from(material, 'base64');
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32) {
        throw new ConfigValidationError([
          `AUDIT_ENCRYPTION_KEYS entry ${index + 1} must be keyId:base64 of 32 bytes`,
        ]);
      }
      keys.set(id, key);
    });
  return keys;
}

export const traceConfig = registerAs('trace', () => {
  const env = validateEnv(TraceEnv);
  const encryptionKeys = parseEncryptionKeys(env.AUDIT_ENCRYPTION_KEYS);
  const activeKeyId = env.AUDIT_ENCRYPTION_ACTIVE_KEY_ID || [...encryptionKeys.keys()][0] || null;
  if (activeKeyId && !encryptionKeys.has(activeKeyId)) {
    throw new ConfigValidationError([
      'AUDIT_ENCRYPTION_ACTIVE_KEY_ID must name one of AUDIT_ENCRYPTION_KEYS',
    ]);
  }
  if (!activeKeyId && !env.DEMO_MODE) {
    throw new ConfigValidationError([
      'AUDIT_ENCRYPTION_KEYS is required outside demo mode: the reasoning audit is encrypted at rest',
    ]);
  }
  // Two missed heartbeats at least before a live replica's runs could be taken for dead.
  if (env.RUN_HEARTBEAT_MS * 2 > env.RUN_LEASE_MS) {
    throw new ConfigValidationError(['RUN_HEARTBEAT_MS must be at most half of RUN_LEASE_MS']);
  }
  return {
    encryptionKeys,
    activeKeyId,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    traceRetentionDays: env.TRACE_RETENTION_DAYS,
    abandonAfterMinutes: env.RUN_ABANDON_AFTER_MINUTES,
    runLease: { heartbeatMs: env.RUN_HEARTBEAT_MS, leaseMs: env.RUN_LEASE_MS },
  };
});
export type TraceConfig = ConfigType<typeof traceConfig>;
