import { ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsString } from 'class-validator';
import { ConfigValidationError, EnvBoolean, EnvSection, validateEnv } from '@app/config';

/**
 * chat: ask and read documents; knowledge_admin: upload and delete documents; trace_reader: own sessions'
 * and alert groups' traces; auditor: every session and the reasoning audit; metrics_read: scrape GET /metrics;
 * alert_ingest: only the alert webhook (POST /api/alerts/alertmanager).
 */
export const API_ROLES = [
  'chat',
  'knowledge_admin',
  'trace_reader',
  'auditor',
  'metrics_read',
  'alert_ingest',
] as const;
export type ApiRole = (typeof API_ROLES)[number];

/** The documented key the demo may enable; never valid unless AUTH_DEV_KEY_ENABLED=true. */
export const DEV_API_KEY = 'superbiz-dev-key-change-me';

@EnvSection('auth', 'Access control')
export class AuthEnv {
  /** `roles=key` entries, comma-separated; roles joined with `|`, e.g. `trace_reader=k1,auditor|trace_reader=k2`. */
  @IsString() API_KEYS: string = '';
  @EnvBoolean() @IsBoolean() AUTH_DEV_KEY_ENABLED: boolean = false;
}

export function parseApiKeys(raw: string): { key: string; roles: ApiRole[] }[] {
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

export const authConfig = registerAs('auth', () => {
  const env = validateEnv(AuthEnv);
  const apiKeys = parseApiKeys(env.API_KEYS);
  // The demo key holds every role so the demo can show every page and endpoint.
  if (env.AUTH_DEV_KEY_ENABLED) apiKeys.push({ key: DEV_API_KEY, roles: [...API_ROLES] });
  return { apiKeys };
});
export type AuthConfig = ConfigType<typeof authConfig>;
