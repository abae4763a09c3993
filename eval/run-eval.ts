import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { stringify } from 'yaml';
import { AdminConnection, createBusinessDatabase, dropBusinessDatabase } from '../test/support/business-db';
import { parseSse } from '../test/support/sse-client';
import { StubLlmServer } from '../test/support/stub-llm/stub-llm-server';
import { progressLine } from './progress';
import { EvalRun, htmlReport, markdownTable, ScenarioResult, summarize } from './report';
import { loadScenarios, Scenario, sqlStatements } from './scenario';
import { reportOf, scoreScenario, TurnObservation } from './scorer';
import { freePort } from '../test/support/free-port';

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
  return {
    scenariosDir: resolve(values.scenarios ?? 'eval/scenarios'),
    outDir: resolve(values.out ?? 'eval/results'),
    only: values.scenario ?? [],
    concurrency,
    minPassRate,
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
      // not listening yet
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
        run?: { budget?: Record<string, unknown> };
        tool_invocations?: TurnObservation['toolCalls'];
      };
      turn.toolCalls = (body.tool_invocations ?? []).map(({ tool_name, status, evidence_status }) => ({
        tool_name,
        status,
        evidence_status,
      }));
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

/**
 * Runs one scenario in isolation: its own service database, business schema and read-only account, its
 * own log directory, and the built service booted as a separate process on 127.0.0.1, spoken to over HTTP.
 */
async function runScenario(scenario: Scenario, index: number, opts: Options): Promise<ScenarioResult> {
  const suffix = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const serviceDb = `superbiz_eval_${index}_${suffix}`;
  const business = {
    schema: `superbiz_evalbiz_${index}_${suffix}`,
    user: `ev_${index}_${suffix}`,
    password: randomBytes(12).toString('hex'),
  };
  const work = mkdtempSync(join(tmpdir(), `superbiz-eval-${scenario.name}-`));
  const stub = opts.model ? null : new StubLlmServer();
  stub?.load(scenario.oracle);
  let child: ChildProcess | null = null;
  const logFile = join(opts.outDir, 'service-logs', `${scenario.name}.log`);
  try {
    await createServiceDatabase(opts.admin, serviceDb);
    await createBusinessDatabase(opts.admin, business, new Date(scenario.spec.now), false);
    await loadBusinessRows(opts.admin, business.schema, scenario.businessSql);
    writeFileSync(join(work, 'mysql-tools.yaml'), mysqlToolsYaml(business.schema));
    const llm = opts.model ?? { baseUrl: await stub!.start(), model: 'stub-oracle', apiKey: 'stub-key' };
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const log = createWriteStream(logFile);
    child = spawn(process.execPath, ['dist/apps/server/src/main.js'], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: process.env.EVAL_SERVICE_LOG_LEVEL ?? 'warn',
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
      },
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    await waitForHealth(baseUrl, child, opts.bootTimeoutMs);
    for (const runbook of scenario.runbooks) await uploadRunbook(baseUrl, runbook);

    const turns: TurnObservation[] = [];
    let sessionId: string | null = null;
    for (const query of [scenario.spec.query, scenario.spec.follow_up].filter((q): q is string => !!q)) {
      const result = await chatTurn(baseUrl, query, sessionId);
      sessionId = result.sessionId;
      turns.push(result.turn);
    }
    const final = turns.at(-1)!;
    return {
      name: scenario.name,
      title: scenario.spec.title,
      failure_class: scenario.spec.failure_class,
      expected_outcome: scenario.spec.expect.outcome,
      answer: final.contentType ?? (final.failureCode ? `failure ${final.failureCode}` : 'none'),
      conclusion: reportOf(final)?.conclusion?.text ?? null,
      score: scoreScenario(scenario.spec.expect, turns),
    };
  } catch (error) {
    const tail = (() => {
      try {
        return readFileSync(logFile, 'utf8').split('\n').slice(-5).join(' | ');
      } catch {
        return '';
      }
    })();
    const message = `${(error as Error).message}${tail ? ` (service log: ${tail})` : ''}`;
    return {
      name: scenario.name,
      title: scenario.spec.title,
      failure_class: scenario.spec.failure_class,
      expected_outcome: scenario.spec.expect.outcome,
      answer: 'harness error',
      conclusion: null,
      score: { ...scoreScenario(scenario.spec.expect, []), problems: [message] },
    };
  } finally {
    if (child) await stopService(child);
    await stub?.stop();
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

/** `npm run eval [-- --llm-base-url URL --model NAME --api-key KEY] [--scenario NAME]... [--out DIR]` */
export async function main(argv: string[]): Promise<EvalRun> {
  const opts = options(argv);
  const scenarios = loadScenarios(opts.scenariosDir, opts.only);
  mkdirSync(join(opts.outDir, 'service-logs'), { recursive: true });
  const startedAt = new Date();
  let done = 0;
  const results = await pool(scenarios, opts.concurrency, async (scenario, index) => {
    const started = Date.now();
    const result = await runScenario(scenario, index, opts);
    done += 1;
    process.stdout.write(progressLine(result, done, scenarios.length, Date.now() - started));
    return result;
  });
  const run = summarize(
    opts.model ? 'model' : 'oracle',
    opts.model?.model ?? 'stub-oracle',
    startedAt,
    results,
  );
  writeFileSync(join(opts.outDir, 'latest.json'), `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(join(opts.outDir, 'latest.md'), `${markdownTable(run)}\n`);
  writeFileSync(join(opts.outDir, 'report.html'), htmlReport(run));
  process.stdout.write(`${markdownTable(run)}\n\n`);
  for (const result of results.filter((r) => !r.score.passed)) {
    process.stdout.write(`${result.name}: ${result.score.problems.join('; ')}\n`);
  }
  process.stdout.write(`results: ${join(opts.outDir, 'latest.json')}, ${join(opts.outDir, 'report.html')}\n`);
  if (run.pass_rate < opts.minPassRate) process.exitCode = 1;
  return run;
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`eval: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  });
}
