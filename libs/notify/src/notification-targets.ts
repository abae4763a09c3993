import { parse as parseYaml, YAMLError } from 'yaml';
import { z } from 'zod';

/** A configured target with its secrets resolved from the environment; never logged or returned by an API. */
export type NotificationTarget =
  | { name: string; kind: 'webhook'; url: string; secret: string | null }
  | { name: string; kind: 'slack'; url: string }
  | { name: string; kind: 'feishu'; url: string; secret: string | null; message: 'text' | 'interactive' }
  | { name: string; kind: 'dingtalk'; url: string; secret: string | null }
  | { name: string; kind: 'wecom'; url: string };

/** Names are what a chat request and the trace use: short, and safe in a log line. */
export const TARGET_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
const MAX_TARGETS = 50;

const name = z
  .string()
  .regex(TARGET_NAME, 'must be 1-64 characters of a-z, 0-9, _ or -, starting with a letter or digit');
const envName = z.string().regex(ENV_NAME, 'must be an environment variable name (A-Z, 0-9, _)');
/** A URL written in the file: http(s), no credentials, and no query (a token belongs in an *_env key). */
const plainUrl = z.string().refine(isPlainUrl, {
  message: 'must be an http(s) URL without user info or query (credentials go in the *_env keys)',
});

/** The file's shape, one strict object per kind: a key the kind does not know is an error, not ignored. */
const TARGET_SCHEMA = z.discriminatedUnion('kind', [
  // Generic JSON webhook: the URL may be written here or (when it carries a credential) come from the env.
  z
    .strictObject({
      name,
      kind: z.literal('webhook'),
      url: plainUrl.optional(),
      url_env: envName.optional(),
      secret_env: envName.optional(),
    })
    .refine((target) => (target.url === undefined) !== (target.url_env === undefined), {
      message: 'give exactly one of url and url_env',
      path: ['url'],
    }),
  // Slack and Feishu webhook URLs are themselves the credential: only ever from the environment.
  z.strictObject({ name, kind: z.literal('slack'), url_env: envName }),
  z.strictObject({
    name,
    kind: z.literal('feishu'),
    url_env: envName,
    secret_env: envName.optional(),
    message: z.enum(['text', 'interactive']).default('interactive'),
  }),
  z.strictObject({
    name,
    kind: z.literal('dingtalk'),
    url: plainUrl.default('https://oapi.dingtalk.com/robot/send'),
    access_token_env: envName,
    secret_env: envName.optional(),
  }),
  z.strictObject({
    name,
    kind: z.literal('wecom'),
    url: plainUrl.default('https://qyapi.weixin.qq.com/cgi-bin/webhook/send'),
    key_env: envName,
  }),
]);

const FILE_SCHEMA = z.strictObject({
  targets: z.array(z.unknown()).min(1, 'must list at least one target').max(MAX_TARGETS),
});

/**
 * Parses and validates a targets file (YAML, or JSON, which is YAML) and resolves each secret from
 * `env`. Every problem is listed, naming the target and the field, never a value; a secret variable
 * that is unset or empty is one of them. Throws `TargetsFileError` when there is any.
 */
export function parseTargetsFile(
  text: string,
  env: Record<string, string | undefined>,
): NotificationTarget[] {
  let document: unknown;
  try {
    document = parseYaml(text, { uniqueKeys: true, maxAliasCount: 0 });
  } catch (error) {
    // The parser's message quotes the source line, which may hold anything: only its code and position.
    if (error instanceof YAMLError) {
      const at = error.linePos?.[0];
      throw new TargetsFileError([
        `not valid YAML/JSON (${error.code}${at ? ` at line ${at.line}, column ${at.col}` : ''})`,
      ]);
    }
    throw error;
  }
  const file = FILE_SCHEMA.safeParse(document);
  if (!file.success) throw new TargetsFileError(file.error.issues.map((issue) => describeIssue('', issue)));
  const problems: string[] = [];
  const targets: NotificationTarget[] = [];
  const seen = new Set<string>();
  file.data.targets.forEach((raw, index) => {
    const label = targetLabel(raw, index);
    const parsed = TARGET_SCHEMA.safeParse(raw);
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((issue) => describeIssue(label, issue)));
      return;
    }
    const entry = parsed.data;
    if (seen.has(entry.name)) problems.push(`${label}: the name is used by an earlier target`);
    seen.add(entry.name);
    const resolved = resolveTarget(entry, env, label, problems);
    if (resolved) targets.push(resolved);
  });
  if (problems.length > 0) throw new TargetsFileError(problems);
  return targets;
}

export class TargetsFileError extends Error {
  override readonly name = 'TargetsFileError';
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

type TargetEntry = z.infer<typeof TARGET_SCHEMA>;

function resolveTarget(
  entry: TargetEntry,
  env: Record<string, string | undefined>,
  label: string,
  problems: string[],
): NotificationTarget | null {
  const secret = (field: string, variable: string | undefined): string | null => {
    if (variable === undefined) return null;
    const value = env[variable];
    if (value === undefined || value.trim() === '') {
      problems.push(`${label}.${field}: the environment variable ${variable} is not set`);
      return null;
    }
    return value.trim();
  };
  const envUrl = (variable: string): string | null => {
    const value = secret('url_env', variable);
    if (value === null) return null;
    if (!isHttpUrl(value)) {
      problems.push(`${label}.url_env: ${variable} does not hold an http(s) URL`);
      return null;
    }
    return value;
  };
  const before = problems.length;
  switch (entry.kind) {
    case 'webhook': {
      const url = entry.url ?? envUrl(entry.url_env as string);
      const key = secret('secret_env', entry.secret_env);
      return problems.length > before || url === null
        ? null
        : { name: entry.name, kind: 'webhook', url, secret: key };
    }
    case 'slack': {
      const url = envUrl(entry.url_env);
      return url === null ? null : { name: entry.name, kind: 'slack', url };
    }
    case 'feishu': {
      const url = envUrl(entry.url_env);
      const key = secret('secret_env', entry.secret_env);
      return problems.length > before || url === null
        ? null
        : { name: entry.name, kind: 'feishu', url, secret: key, message: entry.message };
    }
    case 'dingtalk': {
      const token = secret('access_token_env', entry.access_token_env);
      const key = secret('secret_env', entry.secret_env);
      if (problems.length > before || token === null) return null;
      const url = new URL(entry.url);
      url.searchParams.set('access_token', token);
      return { name: entry.name, kind: 'dingtalk', url: url.toString(), secret: key };
    }
    case 'wecom': {
      const key = secret('key_env', entry.key_env);
      if (key === null) return null;
      const url = new URL(entry.url);
      url.searchParams.set('key', key);
      return { name: entry.name, kind: 'wecom', url: url.toString() };
    }
  }
}

function targetLabel(raw: unknown, index: number): string {
  const named =
    typeof raw === 'object' && raw !== null && typeof (raw as { name?: unknown }).name === 'string'
      ? (raw as { name: string }).name
      : null;
  // Only a valid name is echoed: anything else could be a pasted secret.
  return named !== null && TARGET_NAME.test(named)
    ? `target "${named}" (targets[${index}])`
    : `targets[${index}]`;
}

function describeIssue(label: string, issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  const where = [label, path].filter(Boolean).join('.');
  return `${where || 'the file'}: ${issue.message}`;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function isPlainUrl(value: string): boolean {
  if (!isHttpUrl(value)) return false;
  const url = new URL(value);
  return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
}
