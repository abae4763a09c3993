import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { parseScenarioMetrics, ScenarioMetrics } from './scenario-metrics';

const regex = z.string().refine((source) => {
  try {
    new RegExp(source, 'i');
    return true;
  } catch {
    return false;
  }
}, 'must be a valid regular expression');

/** `scenario.yaml`: what the user asks and what a correct answer must (not) say. */
export const scenarioSpecSchema = z.strictObject({
  title: z.string().min(1),
  failure_class: z.string().min(1),
  /** The incident's "now": the log window ends here (LOGS_JSONL_NOW), as when replaying an export. */
  now: z.iso.datetime({ offset: true }),
  query: z.string().min(1),
  follow_up: z.string().min(1).optional(),
  expect: z.strictObject({
    /** report: a released report with a conclusion; no_conclusion: conclusion null or the fallback. */
    outcome: z.enum(['report', 'no_conclusion']),
    /** Case-insensitive regexes that must all match the conclusion (report outcome only). */
    root_cause: z.array(regex).default([]),
    /** Case-insensitive regexes no claim (conclusion, NORMAL analysis, actions, recommendations) may match. */
    forbidden: z.array(regex).default([]),
    /**
     * Source types the report's NORMAL analysis must cite (LOG references must be FILE evidence; METRIC
     * needs the scenario's `metrics.yaml`, whose Prometheus is the only metrics source the service has).
     */
    evidence: z.array(z.enum(['LOG', 'MYSQL', 'KNOWLEDGE', 'METRIC'])).default([]),
    /**
     * Correct conclusions as different people write them (report outcome: at least one Chinese and one
     * English): the markers must accept every one (eval/scorer.spec.ts), so a marker is never one wording.
     */
    samples: z.array(z.string().min(1)).default([]),
  }),
});
export type ScenarioSpec = z.infer<typeof scenarioSpecSchema>;
export type Expectation = ScenarioSpec['expect'];

export interface Scenario {
  name: string;
  directory: string;
  spec: ScenarioSpec;
  runbooks: string[];
  logsDir: string;
  /** The rows loaded into its business tables: the shared `background.sql`, then its own `business.sql`. */
  businessSql: string;
  /** The scripted stub-LLM run that solves it (stub script format), for oracle mode. */
  oracle: unknown;
  /** Its `metrics.yaml`: time series served by a Prometheus of its own; null when it ships none. */
  metrics: ScenarioMetrics | null;
}

/** Loads and validates one scenario directory; a broken scenario names its file and problem. */
export function loadScenario(directory: string, name: string): Scenario {
  const root = join(directory, name);
  const read = (file: string) => readFileSync(join(root, file), 'utf8');
  const parsed = scenarioSpecSchema.safeParse(parse(read('scenario.yaml')));
  if (!parsed.success) {
    throw new Error(
      `${name}/scenario.yaml: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  }
  const metrics = existsSync(join(root, 'metrics.yaml'))
    ? parseScenarioMetrics(parse(read('metrics.yaml')), `${name}/metrics.yaml`)
    : null;
  if (parsed.data.expect.evidence.includes('METRIC') && !metrics)
    throw new Error(
      `${name}/scenario.yaml: expect.evidence names METRIC but the scenario has no metrics.yaml`,
    );
  const runbooksDir = join(root, 'runbooks');
  const runbooks = existsSync(runbooksDir)
    ? readdirSync(runbooksDir)
        .filter((file) => file.endsWith('.md'))
        .sort()
        .map((file) => join(runbooksDir, file))
    : [];
  return {
    name,
    directory: root,
    spec: parsed.data,
    runbooks,
    logsDir: join(root, 'logs'),
    businessSql: [join(directory, 'background.sql'), join(root, 'business.sql')]
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n'),
    oracle: JSON.parse(read('oracle.json')) as unknown,
    metrics,
  };
}

export function loadScenarios(directory: string, only: string[] = []): Scenario[] {
  const names = readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(directory, entry.name, 'scenario.yaml')))
    .map((entry) => entry.name)
    .filter((name) => only.length === 0 || only.includes(name))
    .sort();
  const unknown = only.filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}`);
  return names.map((name) => loadScenario(directory, name));
}

/** SQL statements of business.sql (one per `;` at a line end; `--` comment lines dropped). */
export function sqlStatements(sql: string): string[] {
  return sql
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter(Boolean);
}
