import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunTrace } from '@app/contracts';
import { postChat } from '../support/sse-client';
import { assertHoldsPort } from '../support/bound-port';
import { freePort } from '../support/free-port';
import { scaled } from '../support/test-timeouts';

// The longest test or hook here needs up to 180 s on an idle machine; the suite's
// time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(180_000));

/**
 * `npm run demo` as a new user runs it (dist/ as `npm test` built it): the real server and the stub LLM
 * with the demo script, against this run's services. Covers what a first user found: the console
 * shows progress and ends with the URL and the dev key (the JSON logs go to the named log file), the
 * stub's answers follow the request, the router is not misled by the previous question, a follow-up
 * about the metrics gets its own report citing query_metrics on the demo's real Prometheus, the demo
 * listens on loopback only, and SIGTERM frees every port.
 */
const DEV_KEY = 'superbiz-dev-key-change-me';

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

/** Local addresses (hex, as in /proc/net/tcp) of the sockets listening on `port`. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // state 0A = LISTEN
      .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A')
      .map((fields) => fields[1].split(':')[0]),
  );
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The environment `npm run demo` gets in these tests: this run's databases, free ports, its own log file. */
function demoEnv(ports: { port: number; stubPort: number; prometheusPort: number }) {
  const ordersSchema = `${process.env.E2E_SERVICE_DB}_demo_orders`;
  const toolsConfig = join(mkdtempSync(join(tmpdir(), 'superbiz-demo-')), 'mysql-tools.yaml');
  writeFileSync(
    toolsConfig,
    readFileSync('demo/mysql-tools.yaml', 'utf8').replaceAll('superbiz_demo_orders', ordersSchema),
  );
  const logFile = join(mkdtempSync(join(tmpdir(), 'superbiz-demo-log-')), 'demo.log');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DEMO_SKIP_BUILD: 'true',
    PORT: String(ports.port),
    STUB_LLM_PORT: String(ports.stubPort),
    PROMETHEUS_PORT: String(ports.prometheusPort),
    DB_NAME: `${process.env.E2E_SERVICE_DB}_demo`,
    ORDER_MYSQL_URL: `mysql://${process.env.DB_HOST}:${process.env.DB_PORT}/${ordersSchema}`,
    MYSQL_TOOLS_CONFIG: toolsConfig,
    DOCUMENTS_DIR: mkdtempSync(join(tmpdir(), 'superbiz-demo-docs-')),
    // A user's default: the info-level JSON lines the console must not show.
    LOG_LEVEL: 'info',
    DEMO_LOG_FILE: logFile,
  };
  delete env.HOST;
  delete env.LLM_BASE_URL;
  delete env.METRICS_TOOLS_CONFIG;
  delete env.METRICS_NOW;
  return { env, logFile };
}

describe('npm run demo', () => {
  let demo: ChildProcess;
  let output = '';
  let port: number;
  let stubPort: number;
  let prometheusPort: number;
  let baseUrl: string;
  let exited: Promise<number | null>;
  let logFile: string;

  beforeAll(async () => {
    port = await freePort();
    stubPort = await freePort();
    prometheusPort = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    let env: NodeJS.ProcessEnv;
    ({ env, logFile } = demoEnv({ port, stubPort, prometheusPort }));
    // Its own process group, so a failed test can still clean up everything the demo started.
    demo = spawn('npm', ['run', 'demo'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    demo.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    demo.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => demo.once('exit', (code) => resolve(code)));
    await waitFor(
      async () => {
        if (demo.exitCode !== null) throw new Error(`the demo exited early:\n${output}`);
        return fetch(`${baseUrl}/health`).then(
          (response) => response.ok,
          () => false,
        );
      },
      'the demo to answer /health',
      150_000,
    );
    await waitFor(async () => output.includes('demo: web UI on'), 'the demo to print its URL', 15_000);
    // The ports were picked free beforehand; had another process taken one first, it would have answered
    // in the demo's place. The demo's own processes hold all three.
    for (const [what, held] of [
      ['the service', port],
      ['the stub LLM', stubPort],
      ['Prometheus', prometheusPort],
    ] as const)
      assertHoldsPort(demo.pid!, held, `the demo's ${what}`);
  });

  afterAll(async () => {
    try {
      process.kill(-demo.pid!, 'SIGKILL');
    } catch {
      // the group is gone: the SIGTERM test stopped everything
    }
    await exited;
  });

  it('shows one line per step, then the URL and the dev key last; the JSON logs go to the named file', () => {
    const lines = output.trimEnd().split('\n');
    const steps = [
      'demo: logs of every step and of the running service: ' + logFile,
      'demo: starting services (MariaDB, Redis)',
      `demo: migrating the service database (${process.env.E2E_SERVICE_DB}_demo)`,
      'demo: seeding the demo order database and runbooks',
      `demo: starting Prometheus with the demo incident's metrics (http://127.0.0.1:${prometheusPort})`,
      'demo: starting the stub LLM and the service',
      `demo: ready (logs: ${logFile}); Ctrl-C stops it`,
    ];
    const positions = steps.map((step) => lines.indexOf(step));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(lines.at(-1)).toBe(
      `demo: web UI on http://127.0.0.1:${port}/, API key: ${DEV_KEY} (OpenAPI at /api/docs, health at /health)`,
    );
    expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
    expect(readFileSync(logFile, 'utf8')).toContain(`Listening on http://127.0.0.1:${port}`);
  });

  it('listens on 127.0.0.1 only, the server, the stub and Prometheus', () => {
    const loopback = '0100007F';
    expect(listeningAddresses(port)).toEqual([loopback]);
    expect(listeningAddresses(stubPort)).toEqual([loopback]);
    expect(listeningAddresses(prometheusPort)).toEqual([loopback]);
  });

  it('cites the runbook a user uploaded, and routes a diagnosis after that question to DIAGNOSIS', async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob(
        [
          '# Zebra queue backlog\n\n## ERR_ZEBRA_BACKLOG\n\nThe zebra-queue consumer fell behind by more than ' +
            'ten thousand messages. Scale the zebra consumers before replaying the dead letters.\n',
        ],
        { type: 'text/markdown' },
      ),
      'zebra-backlog.md',
    );
    form.append('title', 'Zebra queue backlog runbook');
    const uploaded = await fetch(`${baseUrl}/api/documents/upload`, {
      method: 'POST',
      headers: { 'x-api-key': DEV_KEY },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const documentId = String(((await uploaded.json()) as { document_id: string }).document_id);

    const knowledge = await postChat(
      baseUrl,
      { query: 'What does ERR_ZEBRA_BACKLOG mean?' },
      { apiKey: DEV_KEY },
    );
    // A retry of this POST would start a new run, so the stream must not invite one.
    expect(knowledge.text).not.toMatch(/^retry:/m);
    const content = knowledge.events.find((event) => event.event === 'content')!.data as {
      content_type: string;
      payload: { answer: string; references: { document_id: string }[] };
    };
    expect(content.content_type).toBe('KNOWLEDGE_ANSWER');
    expect(content.payload.references.map((reference) => reference.document_id)).toContain(documentId);
    expect(content.payload.answer).toContain('Zebra queue backlog runbook');

    const sessionId = String(knowledge.events[0].data.session_id);
    const diagnosis = await postChat(
      baseUrl,
      { session_id: sessionId, query: '订单 order-123 支付超时，帮我排查原因' },
      { apiKey: DEV_KEY },
    );
    const report = diagnosis.events.find((event) => event.event === 'content')!.data;
    expect(report.content_type).toBe('DIAGNOSIS_REPORT');
    expect(diagnosis.events.at(-1)).toEqual({ event: 'done', data: { outcome: 'SUCCESS' } });
  });

  it('answers a metrics follow-up with a different report that cites query_metrics on Prometheus', async () => {
    type Report = {
      conclusion: { text: string };
      references: { reference_id: number; source: string; values: unknown }[];
    };
    const ask = async (query: string, sessionId?: string) => {
      const response = await postChat(baseUrl, sessionId ? { session_id: sessionId, query } : { query }, {
        apiKey: DEV_KEY,
      });
      const content = response.events.find((event) => event.event === 'content')!.data as {
        content_type: string;
        payload: Report;
      };
      return {
        sessionId: String(response.events[0].data.session_id),
        runId: String(response.events[0].data.run_id),
        contentType: content.content_type,
        report: content.payload,
        done: response.events.at(-1),
      };
    };
    const first = await ask('订单 order-123 支付超时，帮我排查原因');
    expect([first.contentType, first.done]).toEqual([
      'DIAGNOSIS_REPORT',
      { event: 'done', data: { outcome: 'SUCCESS' } },
    ]);
    const followUp = await ask('is the payment service saturated? check its metrics', first.sessionId);
    expect(followUp.sessionId).toBe(first.sessionId);
    expect([followUp.contentType, followUp.done]).toEqual([
      'DIAGNOSIS_REPORT',
      { event: 'done', data: { outcome: 'SUCCESS' } },
    ]);
    expect(followUp.report.conclusion.text).not.toBe(first.report.conclusion.text);

    // Which tool each reference expands, by name (the RELEASED event maps ref_<n> to its tool call).
    const response = await fetch(
      `${baseUrl}/api/diagnosis/${followUp.sessionId}/trace?runId=${followUp.runId}`,
      { headers: { 'x-api-key': DEV_KEY } },
    );
    const trace = (await response.json()) as RunTrace;
    expect(trace.timeline).toContainEqual(
      expect.objectContaining({
        event_type: 'AGENT_STARTED',
        details: expect.objectContaining({ previous_turn: true }),
      }),
    );
    const released = trace.timeline.find((event) => event.event_type === 'RELEASED')!.details!;
    const toolOf = (referenceId: number) =>
      trace.tool_invocations.find((invocation) => invocation.tool_call_id === released[`ref_${referenceId}`])
        ?.tool_name;
    expect(followUp.report.references.length).toBeGreaterThan(0);
    expect(followUp.report.references.map((reference) => toolOf(reference.reference_id))).toEqual(
      followUp.report.references.map(() => 'query_metrics'),
    );
    // The figures come from the backfilled Prometheus: order-service's pool pinned at its 50 connections.
    expect(followUp.report.references[0].values).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          labels: { service: 'order-service' },
          max: 50,
          last: 50,
          trend: expect.arrayContaining([50]),
        }),
      ]),
    );
  });

  it('prints a curl line that fires the demo incident’s alert, whose investigation ends in a released report', async () => {
    const prefix = "demo: fire the demo incident's alert (Alertmanager webhook, as the dev key): ";
    const line = output.split('\n').find((candidate) => candidate.startsWith(prefix));
    expect(line).toBeDefined();
    expect(output).toContain(`Runs → Alert investigations (http://127.0.0.1:${port}/#/runs)`);
    // As a user pastes it into a shell in the repository.
    const fired = execFileSync('bash', ['-c', line!.slice(prefix.length)], { encoding: 'utf8' });
    const answer = JSON.parse(fired) as { outcome: string; session_id: string; run_ids: string[] };
    expect(answer.outcome).toBe('INVESTIGATION_STARTED');
    let trace: RunTrace | undefined;
    await waitFor(
      async () => {
        const response = await fetch(
          `${baseUrl}/api/diagnosis/${answer.session_id}/trace?runId=${answer.run_ids[0]}`,
          { headers: { 'x-api-key': DEV_KEY } },
        );
        trace = (await response.json()) as RunTrace;
        return trace.run.status !== 'RUNNING';
      },
      'the alert investigation to end',
      60_000,
    );
    expect(trace!.run).toMatchObject({ status: 'SUCCESS', release_outcome: 'SUCCESS', intent: 'DIAGNOSIS' });
    expect(trace!.session.alert?.labels).toMatchObject({ alertname: 'PaymentTimeouts' });
  }, 90_000);

  it('stops the server, the stub and Prometheus on SIGTERM, freeing every port', async () => {
    // To npm alone, as `kill <pid>` or a process manager sends it.
    demo.kill('SIGTERM');
    await exited;
    const ports = [port, stubPort, prometheusPort];
    const anyAnswers = async () => (await Promise.all(ports.map(portAnswers))).some(Boolean);
    await waitFor(async () => !(await anyAnswers()), 'every port to be free', 15_000);
    expect(await Promise.all(ports.map(portAnswers))).toEqual([false, false, false]);
  });
});

describe('npm run demo when Prometheus cannot start', () => {
  it('stops with a console line naming the step and the reason, leaving no port taken', async () => {
    // Something else already holds the Prometheus port: it accepts connections and never answers.
    const held: Socket[] = [];
    const holder = createServer((socket) => held.push(socket));
    const prometheusPort = await freePort();
    await new Promise<void>((resolve) => holder.listen(prometheusPort, '127.0.0.1', resolve));
    const ports = { port: await freePort(), stubPort: await freePort(), prometheusPort };
    const demo = spawn('bash', ['scripts/demo.sh'], {
      env: demoEnv(ports).env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    demo.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    demo.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => demo.once('exit', resolve));
    let timer: NodeJS.Timeout | undefined;
    try {
      const code = await Promise.race([
        exited,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the demo did not stop:\n${output}`)), 100_000);
        }),
      ]);
      expect(code).toBe(1);
      expect(output).toContain('demo: FAILED: starting Prometheus: the demo Prometheus exited');
      expect(output).toContain(`cannot start prometheus on 127.0.0.1:${prometheusPort}: EADDRINUSE`);
      expect(output).not.toContain('demo: web UI on');
      expect([await portAnswers(ports.port), await portAnswers(ports.stubPort)]).toEqual([false, false]);
    } finally {
      clearTimeout(timer);
      if (demo.exitCode === null) process.kill(-demo.pid!, 'SIGKILL');
      held.forEach((socket) => socket.destroy());
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
