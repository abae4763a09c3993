import { join } from 'node:path';
import { McpServerConfig, McpServerConnection } from '@app/tools';
import { mean, percentile, reportBench } from './support/bench-results';
import { boundPort, startNode, stop } from './support/processes';

/**
 * What a misbehaving MCP server costs the service (issue 36): the SDK's own McpServer in its own
 * process (test/support/misbehaving-mcp-server.mjs) answers CALLS calls with ANSWER_MB of text each,
 * over stdio and over streamable HTTP, against this process's McpServerConnection with the default
 * 1 MiB answer cap. Figures: time from the call to its refusal, and this process's RSS growth while the
 * answers stream (sampled every 5 ms). The time is mostly the test server building its answer (the SDK
 * validates and serialises all of it before the first byte); stdio reads (and drops) the line to its end
 * to find the request id the SDK writes last, HTTP stops at the cap. Before the service's own transports, a 60 MB answer took the
 * service from 219 to 433 MB and stdio answers of 2–9 MB were read in full (up to 4.8 s) first.
 */
const SERVER = join(process.cwd(), 'test', 'support', 'misbehaving-mcp-server.mjs');
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 10);
const ANSWER_MB = Number(process.env.BENCH_MCP_ANSWER_MB ?? 60);
const limits = { connectTimeoutMs: 10_000, reconnectIntervalMs: 0, maxResponseBytes: 1024 * 1024 };

async function measure(config: McpServerConfig): Promise<Record<string, number>> {
  const connection = new McpServerConnection(config, limits);
  if (!(await connection.connect())) throw new Error(`cannot connect to the MCP test server (${config.id})`);
  // A signal per call, as the Harness boundary gives each call its own.
  const signal = () => new AbortController().signal;
  await connection.callTool('echo', { text: 'warm-up' }, signal());
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const times: number[] = [];
  const codes = new Set<string>();
  for (let call = 0; call < CALLS; call += 1) {
    const started = performance.now();
    try {
      await connection.callTool('huge', { bytes: ANSWER_MB * 1024 * 1024 }, signal());
      codes.add('OK');
    } catch (error) {
      codes.add((error as { code?: string }).code ?? 'thrown');
    }
    times.push(performance.now() - started);
  }
  clearInterval(sampler);
  // The server is kept: the next call is answered.
  await connection.callTool('echo', { text: 'still here' }, signal());
  await connection.close();
  if (codes.size !== 1 || !codes.has('MCP_RESULT_TOO_LARGE'))
    throw new Error(`unexpected outcomes ${[...codes].join(', ')}`);
  return {
    refusal_p50_ms: percentile(times, 50),
    refusal_max_ms: Math.max(...times),
    refusal_mean_ms: mean(times),
    rss_growth_peak_mb: (peak - baseline) / 1024 / 1024,
  };
}

async function main(): Promise<void> {
  const stdio = await measure({
    id: 'bench_stdio',
    transport: { kind: 'stdio', command: process.execPath, args: [SERVER, 'stdio'], cwd: undefined, env: {} },
    timeoutMs: 60_000,
    tools: [],
  });
  const server = startNode(SERVER, ['http', '0', 'sse'], {});
  const port = await boundPort(server, 'the MCP test server');
  let http: Record<string, number>;
  try {
    http = await measure({
      id: 'bench_http',
      transport: { kind: 'http', url: new URL(`http://127.0.0.1:${port}/mcp`), headers: {} },
      timeoutMs: 60_000,
      tools: [],
    });
  } finally {
    await stop(server);
  }
  const figures: Record<string, number> = { calls: CALLS, answer_mb: ANSWER_MB, cap_mb: 1 };
  for (const [name, values] of Object.entries({ stdio, http }))
    for (const [key, value] of Object.entries(values)) figures[`${name}_${key}`] = value;
  reportBench('mcp_oversized_answers', figures);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
