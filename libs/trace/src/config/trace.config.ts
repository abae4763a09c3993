import { ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsInt, IsString, Max, Min } from 'class-validator';
import { ConfigValidationError, EnvBoolean, validateEnv } from '@app/config';

export const API_ROLES = ['chat', 'trace_reader', 'auditor'] as const;
export type ApiRole = (typeof API_ROLES)[number];

/** The documented key the demo may enable; never valid unless AUTH_DEV_KEY_ENABLED=true. */
export const DEV_API_KEY = 'superbiz-dev-key-change-me';

export class TraceEnv {
  /** `roles=key` entries, comma-separated; roles joined with `|`, e.g. `trace_reader=k1,auditor|trace_reader=k2`. */
  @IsString() API_KEYS: string = '';
  @EnvBoolean() @IsBoolean() AUTH_DEV_KEY_ENABLED: boolean = false;
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
}

function parseApiKeys(raw: string): { key: string; roles: ApiRole[] }[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry, index) => {
      const separator = entry.indexOf('=');
      const roles = entry
        .slice(0, separator)
        .split('|')
        .map((role) => role.trim());
      const key = entry.slice(separator + 1).trim();
      if (separator < 1 || roles.some((role) => !(API_ROLES as readonly string[]).includes(role))) {
        throw new ConfigValidationError([
          `API_KEYS entry ${index + 1} must be roles=key with roles from ${API_ROLES.join(', ')}`,
        ]);
      }
      if (key.length < 16)
        throw new ConfigValidationError([`API_KEYS entry ${index + 1}: keys must be at least 16 characters`]);
      return { key, roles: roles as ApiRole[] };
    });
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
  const apiKeys = parseApiKeys(env.API_KEYS);
  if (env.AUTH_DEV_KEY_ENABLED) apiKeys.push({ key: DEV_API_KEY, roles: [...API_ROLES] });
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
  return {
    apiKeys,
    encryptionKeys,
    activeKeyId,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    traceRetentionDays: env.TRACE_RETENTION_DAYS,
    abandonAfterMinutes: env.RUN_ABANDON_AFTER_MINUTES,
  };
});
export type TraceConfig = ConfigType<typeof traceConfig>;
