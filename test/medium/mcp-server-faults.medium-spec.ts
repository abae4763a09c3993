import { ChildProcess, spawn } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { McpServerConfig, McpServerConnection } from '@app/tools';
import { boundPort } from '../support/bound-port';
import { freePort } from '../support/free-port';
import { scaled, testTimeoutMs } from '../support/test-timeouts';

const SERVER = resolve(__dirname, '../support/misbehaving-mcp-server.mjs');
const MAX_RESPONSE_BYTES = 256 * 1024;
// The connect deadline only bounds a failure here: a node child starting the SDK takes seconds when loaded.
const limits = {
  connectTimeoutMs: scaled(5000),
  reconnectIntervalMs: 0,
  maxResponseBytes: MAX_RESPONSE_BYTES,
};

/** The misbehaving server over streamable HTTP, as its own process; resolves once it listens. */
async function startHttpServer(responseMode: 'sse' | 'json'): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [SERVER, 'http', '0', responseMode], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { child, url: `http://127.0.0.1:${await boundPort(child, 'the MCP test server')}/mcp` };
}

const stdioConfig = (timeoutMs: number): McpServerConfig => ({
  id: 'faulty',
  transport: { kind: 'stdio', command: process.execPath, args: [SERVER, 'stdio'], cwd: undefined, env: {} },
  timeoutMs,
  tools: [],
});
const httpConfig = (url: string, timeoutMs: number): McpServerConfig => ({
  id: 'faulty',
  transport: { kind: 'http', url: new URL(url), headers: {} },
  timeoutMs,
  tools: [],
});

/** The code a call ends with: a ToolFailure's code, or the signal's reason for a cancelled one. */
async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'OK';
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message;
  }
}

const never = () => new AbortController().signal;

interface Stats {
  open_connections: number;
  open_requests: number;
  closed_early: number;
}

async function waitForStats(url: string, done: (stats: Stats) => boolean): Promise<Stats> {
  let stats: Stats = { open_connections: -1, open_requests: -1, closed_early: -1 };
  for (let attempt = 0; attempt < 100; attempt += 1) {
    stats = (await (await fetch(new URL('/stats', url))).json()) as Stats;
    if (done(stats)) return stats;
    await new Promise((wait) => setTimeout(wait, 50));
  }
  return stats;
}

/**
 * Issue 36: an MCP server cannot hold the service hostage. A real MCP server (the SDK's McpServer) that
 * misbehaves on purpose, over stdio and over streamable HTTP (event-stream and JSON answers): each fault
 * fails only its own call, with its own code and a log line naming the server, and the server stays usable.
 */
describe('MCP server faults', () => {
  let warnings: jest.SpyInstance;

  beforeEach(() => {
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warnings.mockRestore());

  const logged = () => warnings.mock.calls.map((call) => String(call[0]));

  describe('over stdio', () => {
    let connection: McpServerConnection;

    beforeAll(async () => {
      connection = new McpServerConnection(stdioConfig(20_000), limits);
      expect((await connection.connect())?.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['echo', 'hang', 'huge', 'bad_json', 'wrong_shape']),
      );
    });
    afterAll(() => connection?.close());

    it('answers a normal call and an answer just under the cap', async () => {
      const echo = await connection.callTool('echo', { text: 'hello' }, never());
      expect(echo.content).toEqual([{ type: 'text', text: 'hello' }]);
      const big = await connection.callTool('huge', { bytes: MAX_RESPONSE_BYTES - 1000 }, never());
      expect((big.content[0] as { text: string }).text).toHaveLength(MAX_RESPONSE_BYTES - 1000);
    });

    it.each([
      ['huge', 'MCP_RESULT_TOO_LARGE', { bytes: 40 * MAX_RESPONSE_BYTES }],
      ['bad_json', 'MCP_PARSE_ERROR', {}],
      ['wrong_shape', 'MCP_BAD_RESPONSE', {}],
      ['not_jsonrpc', 'MCP_BAD_RESPONSE', {}],
    ])(
      '%s fails that call with %s (well before the 20 s timeout) and keeps the server',
      async (tool, code, args) => {
        expect(await codeOf(connection.callTool(tool, args, never()))).toBe(code);
        expect(logged()).toContainEqual(expect.stringMatching(new RegExp(`^MCP server faulty: .*${code}`)));
        // The same process answers the next call.
        const echo = await connection.callTool('echo', { text: 'still here' }, never());
        expect(echo.content).toEqual([{ type: 'text', text: 'still here' }]);
      },
    );

    it('a call over the cap fails alone while another call of the same server succeeds', async () => {
      const [huge, echo] = await Promise.all([
        codeOf(connection.callTool('huge', { bytes: 10 * MAX_RESPONSE_BYTES }, never())),
        connection.callTool('echo', { text: 'beside it' }, never()),
      ]);
      expect(huge).toBe('MCP_RESULT_TOO_LARGE');
      expect(echo.content).toEqual([{ type: 'text', text: 'beside it' }]);
    });

    it('a hung call ends as MCP_TIMEOUT at its own limit, a cancelled one with the run signal reason', async () => {
      const short = new McpServerConnection(stdioConfig(300), limits);
      await short.connect();
      try {
        expect(await codeOf(short.callTool('hang', {}, never()))).toBe('MCP_TIMEOUT');
        expect(logged()).toContainEqual(
          expect.stringMatching(/^MCP server faulty: tool hang failed with MCP_TIMEOUT/),
        );
        const run = new AbortController();
        const pending = codeOf(connection.callTool('hang', {}, run.signal));
        run.abort(new Error('RUN_CANCELLED'));
        expect(await pending).toBe('RUN_CANCELLED');
      } finally {
        await short.close();
      }
    });
  });

  describe.each(['sse', 'json'] as const)('over streamable HTTP (%s answers)', (responseMode) => {
    let server: { child: ChildProcess; url: string };
    let connection: McpServerConnection;

    beforeAll(async () => {
      server = await startHttpServer(responseMode);
      connection = new McpServerConnection(httpConfig(server.url, 20_000), limits);
      expect(await connection.connect()).not.toBeNull();
    });
    afterAll(async () => {
      await connection?.close();
      server?.child.kill();
    });

    it('answers a normal call, also after a priming event and a comment', async () => {
      const echo = await connection.callTool('echo', { text: 'hello' }, never());
      expect(echo.content).toEqual([{ type: 'text', text: 'hello' }]);
      const primed = await connection.callTool('primed_echo', { text: 'primed' }, never());
      expect(primed.content).toEqual([{ type: 'text', text: 'primed' }]);
    });

    it.each([
      ['huge', 'MCP_RESULT_TOO_LARGE', { bytes: 40 * MAX_RESPONSE_BYTES }],
      ['bad_json', 'MCP_PARSE_ERROR', {}],
      ['wrong_shape', 'MCP_BAD_RESPONSE', {}],
    ])('%s fails that call with %s and keeps the session', async (tool, code, args) => {
      expect(await codeOf(connection.callTool(tool, args, never()))).toBe(code);
      expect(logged()).toContainEqual(expect.stringMatching(new RegExp(`^MCP server faulty: .*${code}`)));
      const echo = await connection.callTool('echo', { text: 'still here' }, never());
      expect(echo.content).toEqual([{ type: 'text', text: 'still here' }]);
    });

    it('concurrent calls on one session each end with their own outcome', async () => {
      const outcomes = await Promise.all([
        codeOf(connection.callTool('huge', { bytes: 40 * MAX_RESPONSE_BYTES }, never())),
        codeOf(connection.callTool('bad_json', {}, never())),
        codeOf(connection.callTool('wrong_shape', {}, never())),
        connection.callTool('echo', { text: 'beside them' }, never()).then((result) => result.content),
      ]);
      expect(outcomes).toEqual([
        'MCP_RESULT_TOO_LARGE',
        'MCP_PARSE_ERROR',
        'MCP_BAD_RESPONSE',
        [{ type: 'text', text: 'beside them' }],
      ]);
    });

    it('a timed-out and a cancelled call each close their HTTP request', async () => {
      // Earlier tests' refused streams close asynchronously: start from a server with no request open.
      const before = await waitForStats(server.url, (stats) => stats.open_requests === 0);
      expect(before.open_requests).toBe(0);
      const short = new McpServerConnection(httpConfig(server.url, 300), limits);
      await short.connect();
      try {
        expect(await codeOf(short.callTool('hang', {}, never()))).toBe('MCP_TIMEOUT');
        const run = new AbortController();
        const pending = codeOf(connection.callTool('hang', {}, run.signal));
        await waitForStats(server.url, (stats) => stats.open_requests > before.open_requests);
        run.abort(new Error('RUN_CANCELLED'));
        expect(await pending).toBe('RUN_CANCELLED');
        // The server saw both requests go away before it answered them.
        const after = await waitForStats(
          server.url,
          (stats) => stats.closed_early >= before.closed_early + 2 && stats.open_requests === 0,
        );
        expect(after).toMatchObject({ closed_early: before.closed_early + 2, open_requests: 0 });
      } finally {
        await short.close();
      }
    });
  });

  it('a reconnect made for a call is bounded by the call, not by the (longer) connect timeout', async () => {
    // Accepts connections and never answers: the reconnect's initialize waits for nothing.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
    const { port } = silent.address() as { port: number };
    // Unbounded, the reconnect would wait connectTimeoutMs, twice the test's own timeout.
    const connection = new McpServerConnection(httpConfig(`http://127.0.0.1:${port}/mcp`, 300), {
      ...limits,
      connectTimeoutMs: 2 * testTimeoutMs(),
    });
    try {
      expect(await codeOf(connection.callTool('echo', { text: 'x' }, never()))).toBe(
        'MCP_SERVER_UNAVAILABLE',
      );
      const run = new AbortController();
      const pending = codeOf(connection.callTool('echo', { text: 'x' }, run.signal));
      run.abort(new Error('RUN_CANCELLED'));
      expect(await pending).toBe('RUN_CANCELLED');
    } finally {
      await connection.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((closed) => silent.close(closed));
    }
  });

  it('a server that is not there is MCP_SERVER_UNAVAILABLE, with a log line naming it', async () => {
    const connection = new McpServerConnection(
      httpConfig(`http://127.0.0.1:${await freePort()}/mcp`, 1000),
      limits,
    );
    expect(await connection.connect()).toBeNull();
    expect(await codeOf(connection.callTool('echo', { text: 'x' }, never()))).toBe('MCP_SERVER_UNAVAILABLE');
    expect(logged()).toContainEqual(expect.stringMatching(/^MCP server faulty: tool echo not called/));
    await connection.close();
  });
});
