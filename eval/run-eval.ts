import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { stringify } from 'yaml';
import { boundPort } from '../test/support/bound-port';
import { AdminConnection, createBusinessDatabase, dropBusinessDatabase } from '../test/support/business-db';
import { parseSse } from '../test/support/sse-client';
import { StubLlmServer } from '../test/support/stub-llm/stub-llm-server';
import { Baseline, baselineScript, BASELINES } from './baselines';
import {
  contenderRun,
  EvalRun,
  htmlReport,
  markdownTable,
  RunOutcome,
  scenarioResult,
  summarize,
} from './report';
import { loadScenarios, Scenario, sqlStatements } from './scenario';
import { metricFamiliesOf, metricsToolsYaml } from './scenario-metrics';
import { ensurePrometheusBinaries, PrometheusServer } from '../test/support/prometheus';
import { reportOf, scoreScenario, TurnObservation } from './scorer';

/** The documented development key: the eval's services enable it (they listen on 127.0.0.1 only). */
const API_KEY = 'superbiz-dev-key-change-me';

interface Model {
  baseUrl: string;
  model: string;
  apiKey: string;
}

interface Options {
  scenariosDir: string;
  outDir: string;
  only: string[];
  concurrency: number;
  minPassRate: number;
  repeat: number;
  /** null: oracle mode on the stub LLM. */
  model: Model | null;
  admin: AdminConnection;
  bootTimeoutMs: number;
}

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      'llm-base-url': { type: 'string' },
      model: { type: 'string' },
      'api-key': { type: 'string' },
      scenario: { type: 'string', multiple: true },
      scenarios: { type: 'string' },
      out: { type: 'string' },
      concurrency: { type: 'string' },
      'min-pass-rate': { type: 'string' },
      repeat: { type: 'string' },
    },
  });
  const env = process.env;
  const baseUrl = values['llm-base-url'] ?? env.EVAL_LLM_BASE_URL;
  const model: Model | null = baseUrl
    ? {
        baseUrl,
        model: values.model ?? env.EVAL_LLM_MODEL ?? 'deepseek-chat',
        apiKey: values['api-key'] ?? env.EVAL_LLM_API_KEY ?? '',
      }
    : null;
  if (model && !model.apiKey)
    throw new Error('--api-key (or EVAL_LLM_API_KEY) is required with --llm-base-url');
  const concurrency = Number(values.concurrency ?? env.EVAL_CONCURRENCY ?? (model ? 1 : 3));
  const minPassRate = Number(values['min-pass-rate'] ?? (model ? 0 : 1));
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error('--concurrency must be a positive integer');
  if (!(minPassRate >= 0 && minPassRate <= 1)) throw new Error('--min-pass-rate must be between 0 and 1');
  const repeat = Number(values.repeat ?? env.EVAL_REPEAT ?? 1);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 100)
    throw new Error('--repeat must be an integer from 1 to 100');
  return {
    scenariosDir: resolve(values.scenarios ?? 'eval/scenarios'),
    outDir: resolve(values.out ?? 'eval/results'),
    only: values.scenario ?? [],
    concurrency,
    minPassRate,
    repeat,
    model,
    admin: {
      host: env.DB_HOST ?? '127.0.0.1',
      port: Number(env.DB_PORT ?? 3306),
      user: env.DB_USER ?? 'root',
      password: env.DB_PASSWORD ?? '',
    },
    bootTimeoutMs: Number(env.EVAL_BOOT_TIMEOUT_MS ?? 90_000),
  };
}

async function waitForHealth(baseUrl: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the service exited with code ${child.exitCode} during start-up`);
    try {
      const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // not ready yet
    }
    await new Promise((wake) => setTimeout(wake, 250));
  }
  throw new Error(`the service did not become healthy within ${timeoutMs} ms`);
}

async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function uploadRunbook(baseUrl: string, file: string): Promise<void> {
  const content = readFileSync(file);
  const title = /^#\s+(.+)$/m.exec(content.toString('utf8'))?.[1]?.trim() ?? basename(file);
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/markdown' }), basename(file));
  form.append('title', title);
  form.append('category', 'runbook');
  const response = await fetch(`${baseUrl}/api/documents/upload`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY },
    body: form,
  });
  if (!response.ok) throw new Error(`uploading ${basename(file)} answered HTTP ${response.status}`);
}

const asNumber = (value: unknown) => (typeof value === 'number' ? value : 0);

/** One chat turn over the real SSE endpoint, then the run's trace for tool calls and tokens. */
async function chatTurn(
  baseUrl: string,
  query: string,
  sessionId: string | null,
): Promise<{ sessionId: string | null; turn: TurnObservation }> {
  const started = Date.now();
  const response = await fetch(`${baseUrl}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
    body: JSON.stringify(sessionId ? { session_id: sessionId, query } : { query }),
  });
  const text = await response.text();
  const latencyMs = Date.now() - started;
  const events = response.headers.get('content-type')?.startsWith('text/event-stream') ? parseSse(text) : [];
  const data = (name: string) => events.find((event) => event.event === name)?.data;
  const metadata = data('metadata');
  const content = data('content');
  const failure = data('failure');
  const done = data('done');
  const session = typeof metadata?.session_id === 'string' ? metadata.session_id : sessionId;
  const turn: TurnObservation = {
    outcome: typeof done?.outcome === 'string' ? done.outcome : null,
    contentType: typeof content?.content_type === 'string' ? content.content_type : null,
    payload: content?.payload ?? null,
    failureCode:
      typeof failure?.code === 'string' ? failure.code : response.ok ? null : `HTTP_${response.status}`,
    fallbackReason: null,
    errorCode: null,
    latencyMs,
    toolCalls: [],
    tokens: { input: 0, output: 0, total: 0 },
  };
  if (session && typeof metadata?.run_id === 'string') {
    const trace = await fetch(
      `${baseUrl}/api/diagnosis/${encodeURIComponent(session)}/trace?runId=${encodeURIComponent(metadata.run_id)}`,
      { headers: { 'x-api-key': API_KEY } },
    );
    if (trace.ok) {
      const body = (await trace.json()) as {
        run?: { budget?: Record<string, unknown>; fallback_reason?: unknown; error_code?: unknown };
        tool_invocations?: TurnObservation['toolCalls'];
      };
      turn.toolCalls = (body.tool_invocations ?? []).map(({ tool_name, status, evidence_status }) => ({
        tool_name,
        status,
        evidence_status,
      }));
      turn.fallbackReason = typeof body.run?.fallback_reason === 'string' ? body.run.fallback_reason : null;
      turn.errorCode = typeof body.run?.error_code === 'string' ? body.run.error_code : null;
      const budget = body.run?.budget ?? {};
      turn.tokens = {
        input: asNumber(budget.input_tokens),
        output: asNumber(budget.output_tokens),
        total: asNumber(budget.total_tokens),
      };
    }
  }
  return { sessionId: session, turn };
}

async function createServiceDatabase(admin: AdminConnection, name: string, drop = false): Promise<void> {
  const connection = await createConnection(admin);
  try {
    const database = connection.escapeId(name);
    await connection.query(
      drop
        ? `DROP DATABASE IF EXISTS ${database}`
        : `CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await connection.end();
  }
}

async function loadBusinessRows(admin: AdminConnection, schema: string, sql: string): Promise<void> {
  const connection = await createConnection({ ...admin, database: schema });
  try {
    for (const statement of sqlStatements(sql)) await connection.query(statement);
  } finally {
    await connection.end();
  }
}

/** The allowlist of the scenario's business schema (the shared eval tables; credentials stay ${ENV}). */
function mysqlToolsYaml(schema: string): string {
  return stringify({
    harness: {
      'mysql-tools': {
        'data-sources': {
          order_readonly: {
            url: '${ORDER_MYSQL_URL}',
            username: '${ORDER_MYSQL_USERNAME}',
            password: '${ORDER_MYSQL_PASSWORD}',
            'default-schema': schema,
            'allowed-schemas': {
              [schema]: {
                tables: {
                  biz_order: {
                    columns: ['order_id', 'user_id', 'amount', 'payment_status', 'created_at', 'updated_at'],
                  },
                  payment_record: {
                    columns: [
                      'payment_id',
                      'order_id',
                      'channel',
                      'status',
                      'error_code',
                      'latency_ms',
                      'created_at',
                      'updated_at',
                    ],
                  },
                },
              },
            },
          },
        },
      },
    },
  });
}

/** Who answers a run: the model under test (real or the oracle) or a baseline on the stub. */
interface Contender {
  name: string;
  role: 'under_test' | 'baseline';
  /** The stub script of each run; null: the real model the service was booted with. */
  script: ((scenario: Scenario) => unknown) | null;
  repeats: number;
}

/** Provider settings a real model's service gets from this process's environment (names only are printed). */
const PROVIDER_KEYS = /^(?:LLM_|HARNESS_.*TIMEOUT|HARNESS_.*RETR)/;

/** A scenario's metrics come from its own Prometheus only, never from a metrics config this shell has. */
const SCENARIO_METRICS_KEYS = new Set(['METRICS_TOOLS_CONFIG', 'METRICS_NOW']);

function serviceEnv(real: boolean): NodeJS.ProcessEnv {
  // The stub is not the user's provider: its services get none of the provider's settings (extra body, …).
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => (real || !key.startsWith('LLM_')) && !SCENARIO_METRICS_KEYS.has(key),
    ),
  );
}

/**
 * The scenario's metrics in a Prometheus of its own (samples relative to its `now`), and the service's
 * query_metrics allowlist for it; no settings when the scenario ships no metrics (the tool stays off).
 */
async function startScenarioMetrics(
  scenario: Scenario,
  prometheus: PrometheusServer,
  work: string,
): Promise<NodeJS.ProcessEnv> {
  if (!scenario.metrics) return {};
  const url = await prometheus.start(metricFamiliesOf(scenario.metrics, new Date(scenario.spec.now)));
  const config = join(work, 'metrics-tools.yaml');
  writeFileSync(config, metricsToolsYaml(scenario.metrics, url));
  return { METRICS_TOOLS_CONFIG: config, METRICS_NOW: scenario.spec.now };
}

const failureOf = (error: unknown, logFile: string) => {
  const tail = (() => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').slice(-5).join(' | ');
    } catch {
      return '';
    }
  })();
  return `${(error as Error).message}${tail ? ` (service log: ${tail})` : ''}`;
};

/**
 * Runs one scenario in isolation for the given contenders: its own service database, business schema and
 * read-only account, its own log directory, and the built service booted once as a separate process on
 * 127.0.0.1, spoken to over HTTP. Each run is a new session; the stub is re-scripted before each run.
 */
async function runScenario(
  scenario: Scenario,
  index: number,
  opts: Options,
  model: Model | null,
  contenders: Contender[],
): Promise<RunOutcome[][]> {
  const suffix = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const serviceDb = `superbiz_eval_${index}_${suffix}`;
  const business = {
    schema: `superbiz_evalbiz_${index}_${suffix}`,
    user: `ev_${index}_${suffix}`,
    password: randomBytes(12).toString('hex'),
  };
  const work = mkdtempSync(join(tmpdir(), `superbiz-eval-${scenario.name}-`));
  const stub = model ? null : new StubLlmServer();
  const prometheus = new PrometheusServer();
  let child: ChildProcess | null = null;
  const logFile = join(opts.outDir, 'service-logs', `${scenario.name}${model ? '' : '.stub'}.log`);
  const harnessError = (message: string): RunOutcome => ({
    answer: 'harness error',
    conclusion: null,
    fallback_reason: null,
    score: { ...scoreScenario(scenario.spec.expect, []), problems: [message] },
  });
  try {
    await createServiceDatabase(opts.admin, serviceDb);
    await createBusinessDatabase(opts.admin, business, new Date(scenario.spec.now), false);
    await loadBusinessRows(opts.admin, business.schema, scenario.businessSql);
    writeFileSync(join(work, 'mysql-tools.yaml'), mysqlToolsYaml(business.schema));
    const metricsEnv = await startScenarioMetrics(scenario, prometheus, work);
    const llm = model ?? { baseUrl: await stub!.start(), model: 'stub-oracle', apiKey: 'stub-key' };
    const log = createWriteStream(logFile);
    child = spawn(process.execPath, ['dist/apps/server/src/main.js'], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...serviceEnv(model !== null),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DEMO_MODE: 'false',
        DB_HOST: opts.admin.host,
        DB_PORT: String(opts.admin.port),
        DB_USER: opts.admin.user,
        DB_PASSWORD: opts.admin.password,
        DB_NAME: serviceDb,
        DB_MIGRATIONS_RUN: 'true',
        LLM_BASE_URL: llm.baseUrl,
        LLM_MODEL: llm.model,
        LLM_API_KEY: llm.apiKey,
        LOG_BACKEND: 'jsonl',
        LOGS_JSONL_DIR: scenario.logsDir,
        LOGS_JSONL_NOW: scenario.spec.now,
        MYSQL_TOOLS_CONFIG: join(work, 'mysql-tools.yaml'),
        ORDER_MYSQL_URL: `mysql://${opts.admin.host}:${opts.admin.port}/${business.schema}`,
        ORDER_MYSQL_USERNAME: business.user,
        ORDER_MYSQL_PASSWORD: business.password,
        DOCUMENTS_DIR: join(work, 'documents'),
        AUTH_DEV_KEY_ENABLED: 'true',
        AUDIT_ENCRYPTION_KEYS: `eval:${randomBytes(32).toString('base64')}`,
        AUDIT_ENCRYPTION_ACTIVE_KEY_ID: 'eval',
        ...metricsEnv,
      },
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    // PORT=0: a port picked free beforehand could be taken by another process (another scenario's
    // finished service) before this one binds it, and that process would answer in its place.
    const baseUrl = `http://127.0.0.1:${await boundPort(child, 'the service', opts.bootTimeoutMs)}`;
    await waitForHealth(baseUrl, child, opts.bootTimeoutMs);
    for (const runbook of scenario.runbooks) await uploadRunbook(baseUrl, runbook);

    const results: RunOutcome[][] = [];
    for (const contender of contenders) {
      const runs: RunOutcome[] = [];
      for (let repeat = 0; repeat < contender.repeats; repeat++) {
        try {
          if (contender.script) stub?.load(contender.script(scenario));
          const turns: TurnObservation[] = [];
          let sessionId: string | null = null;
          for (const query of [scenario.spec.query, scenario.spec.follow_up].filter(
            (q): q is string => !!q,
          )) {
            const result = await chatTurn(baseUrl, query, sessionId);
            sessionId = result.sessionId;
            turns.push(result.turn);
          }
          const final = turns.at(-1)!;
          runs.push({
            answer: final.contentType ?? (final.failureCode ? `failure ${final.failureCode}` : 'none'),
            conclusion: reportOf(final)?.conclusion?.text ?? null,
            fallback_reason: final.fallbackReason,
            score: scoreScenario(scenario.spec.expect, turns),
          });
        } catch (error) {
          runs.push(harnessError(failureOf(error, logFile)));
        }
      }
      results.push(runs);
    }
    return results;
  } catch (error) {
    const message = failureOf(error, logFile);
    return contenders.map((contender) =>
      Array.from({ length: contender.repeats }, () => harnessError(message)),
    );
  } finally {
    if (child) await stopService(child);
    await stub?.stop();
    await prometheus.stop();
    await createServiceDatabase(opts.admin, serviceDb, true).catch(() => undefined);
    await dropBusinessDatabase(opts.admin, business).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}

async function pool<T, R>(
  items: T[],
  size: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  });
  await Promise.all(workers);
  return results;
}

const metaOf = (scenario: Scenario) => ({
  name: scenario.name,
  title: scenario.spec.title,
  failure_class: scenario.spec.failure_class,
  expected_outcome: scenario.spec.expect.outcome,
});

const baselineContender = (baseline: Baseline): Contender => ({
  name: baseline,
  role: 'baseline',
  script: (scenario) => baselineScript(baseline, scenario.oracle),
  repeats: 1,
});

/**
 * Scenarios with metrics need Debian's prometheus and promtool (installed here when missing): without
 * them the eval stops before any run, naming the scenarios, rather than scoring them as failures.
 */
function requirePrometheus(names: string[]): void {
  if (names.length === 0) return;
  try {
    ensurePrometheusBinaries();
  } catch (error) {
    throw new Error(
      `${names.length} scenario(s) ship metrics (${names.join(', ')}) and need the prometheus and promtool binaries, which are missing and could not be installed: ${(error as Error).message}`,
    );
  }
}

/** `npm run eval [-- --llm-base-url URL --model NAME --api-key KEY] [--scenario NAME]... [--repeat N] [--out DIR]` */
export async function main(argv: string[]): Promise<EvalRun> {
  const opts = options(argv);
  const scenarios = loadScenarios(opts.scenariosDir, opts.only);
  requirePrometheus(scenarios.filter((scenario) => scenario.metrics).map((scenario) => scenario.name));
  mkdirSync(join(opts.outDir, 'service-logs'), { recursive: true });
  const startedAt = new Date();
  const underTest: Contender = {
    name: opts.model?.model ?? 'oracle',
    role: 'under_test',
    script: opts.model ? null : (scenario) => scenario.oracle,
    repeats: opts.repeat,
  };
  // Baselines are deterministic stub scripts: one run each, on a stub-backed service.
  const baselines = BASELINES.map(baselineContender);
  if (opts.model) {
    const forwarded = Object.keys(process.env).filter((key) => PROVIDER_KEYS.test(key));
    process.stderr.write(
      `eval: ${scenarios.length} scenarios × ${opts.repeat} on ${opts.model.model} at ${opts.model.baseUrl}; provider settings passed to its services: ${forwarded.join(', ') || 'none'}\n`,
    );
  } else {
    process.stderr.write(
      `eval: ${scenarios.length} scenarios, the scripted oracles and ${baselines.length} baselines on the stub LLM\n`,
    );
  }
  process.stderr.write(
    `eval: ${opts.concurrency} at a time, one line per scenario as it finishes; service logs in ${join(opts.outDir, 'service-logs')}\n`,
  );
  let finished = 0;
  const perScenario = await pool(scenarios, opts.concurrency, async (scenario, index) => {
    const started = Date.now();
    const outcomes = opts.model
      ? [
          ...(await runScenario(scenario, index, opts, opts.model, [underTest])),
          ...(await runScenario(scenario, index, opts, null, baselines)),
        ]
      : await runScenario(scenario, index, opts, null, [underTest, ...baselines]);
    finished += 1;
    const line = [underTest, ...baselines]
      .map((contender, position) => {
        const result = scenarioResult(metaOf(scenario), outcomes[position]);
        // A run that was not scored says why (a provider failure, a refused request): never a bare verdict.
        const why = result.score.status === 'not_scored' ? ` [${result.score.problems.join('; ')}]` : '';
        return `${contender.name} ${result.result}${why}`;
      })
      .join(', ');
    process.stderr.write(
      `eval: [${finished}/${scenarios.length}] ${scenario.name}: ${line} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
    );
    return outcomes;
  });
  const contenders = [underTest, ...baselines].map((contender, position) =>
    contenderRun(
      contender.name,
      contender.role,
      scenarios.map((scenario, index) => scenarioResult(metaOf(scenario), perScenario[index][position])),
    ),
  );
  const run = summarize(opts.model ? 'model' : 'oracle', underTest.name, startedAt, opts.repeat, contenders);
  writeFileSync(join(opts.outDir, 'latest.json'), `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(join(opts.outDir, 'latest.md'), `${markdownTable(run)}\n`);
  writeFileSync(join(opts.outDir, 'report.html'), htmlReport(run));
  process.stdout.write(`${markdownTable(run)}\n\n`);
  for (const result of run.scenarios.filter((r) => r.result !== 'pass')) {
    const problems = [...new Set(result.runs.flatMap((outcome) => outcome.score.problems))];
    process.stdout.write(`${result.name}: ${problems.join('; ')}\n`);
  }
  process.stdout.write(`results: ${join(opts.outDir, 'latest.json')}, ${join(opts.outDir, 'report.html')}\n`);
  if (run.pass_rate < opts.minPassRate || (!opts.model && run.not_scored > 0)) process.exitCode = 1;
  return run;
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`eval: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  });
}
