import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseToolConfigFile, resolveEnvReference } from '../config/tool-config-file';
import { ConfigValidationError } from '@app/config';
import { AllowedSelector, parseAllowedSelector } from './promql-policy';

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a plain identifier');
const envReference = z
  .string()
  .regex(/^\$\{[A-Z_][A-Z0-9_]*\}$/, 'must be an environment reference like ${NAME}, never a literal value');
const labelName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a label name');

const dataSourceSchema = z.strictObject({
  /** http(s)://host:port[/prefix] of a Prometheus-compatible HTTP API, or an ${ENV} reference to one. */
  url: z.string().min(1),
  'bearer-token': envReference.optional(),
  'allowed-metrics': z.array(z.string().min(1).max(500)).min(1),
  /** Labels whose values the agent never sees (instance addresses, user ids). */
  'redact-labels': z.array(labelName).default([]),
});
const fileSchema = z.strictObject({
  harness: z.strictObject({
    'metrics-tools': z.strictObject({ 'data-sources': z.record(identifier, dataSourceSchema) }),
  }),
});

export interface MetricsDataSourceConfig {
  id: string;
  /** Base URL ending in '/', so `api/v1/query` resolves under any path prefix. */
  baseUrl: string;
  bearerToken: string | null;
  allowlist: AllowedSelector[];
  /** The allowlist as written, for the tool description. */
  allowlistText: string[];
  redactLabels: ReadonlySet<string>;
}

function parseBaseUrl(raw: string, path: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigValidationError([`${path}: must be a URL like http://prometheus:9090`]);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search)
    throw new ConfigValidationError([
      `${path}: must be http(s)://host[:port][/prefix] without credentials or a query string`,
    ]);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.toString();
}

/** Parses the metrics allowlist file; `${ENV}` references are resolved from `env`. */
export function parseMetricsToolsConfig(
  text: string,
  origin: string,
  env: Record<string, string | undefined> = process.env,
): MetricsDataSourceConfig[] {
  const file = parseToolConfigFile(text, origin, fileSchema);
  const sources = Object.entries(file.harness['metrics-tools']['data-sources']);
  if (sources.length === 0)
    throw new ConfigValidationError([`${origin}: harness.metrics-tools.data-sources: name at least one`]);
  return sources.map(([id, source]) => {
    const path = `${origin}: harness.metrics-tools.data-sources.${id}`;
    const rawUrl = /^\$\{[A-Z_][A-Z0-9_]*\}$/.test(source.url)
      ? resolveEnvReference(source.url, `${path}.url`, env)
      : source.url;
    const problems: string[] = [];
    const allowlist = source['allowed-metrics'].flatMap((entry, index) => {
      try {
        return [parseAllowedSelector(entry)];
      } catch (error) {
        problems.push(`${path}.allowed-metrics.${index}: ${(error as Error).message}`);
        return [];
      }
    });
    if (problems.length > 0) throw new ConfigValidationError(problems);
    return {
      id,
      baseUrl: parseBaseUrl(rawUrl, `${path}.url`),
      bearerToken: source['bearer-token']
        ? resolveEnvReference(source['bearer-token'], `${path}.bearer-token`, env)
        : null,
      allowlist,
      allowlistText: source['allowed-metrics'],
      redactLabels: new Set(source['redact-labels']),
    };
  });
}

/** Reads the file named by METRICS_TOOLS_CONFIG; an unreadable file stops start-up naming it. */
export function loadMetricsToolsConfig(path: string): MetricsDataSourceConfig[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigValidationError([
      `METRICS_TOOLS_CONFIG: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    ]);
  }
  return parseMetricsToolsConfig(text, path);
}
