import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { InvocationStore } from '@app/harness';
import { startApp } from '../support/app-under-test';
import { draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { boundPort } from '../support/bound-port';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { scaled } from '../support/test-timeouts';

// The longest test or hook here needs up to 60 s on an idle machine; the suite's
// time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(60_000));

const SERVER = resolve(__dirname, '../support/misbehaving-mcp-server.mjs');

/**
 * Issue 36 through the whole service: one diagnosis calls a misbehaving MCP server over stdio and
 * another over streamable HTTP (test/support/misbehaving-mcp-server.mjs, the SDK's own McpServer). Each
 * fault is a Tool ERROR record with its own code, the calls beside them succeed on the same servers,
 * and the report that cites one of those is released.
 */
describe('misbehaving MCP servers in a diagnosis', () => {
  const stub = new StubLlmServer();
  let app: INestApplication;
  let baseUrl: string;
  let directory: string;
  let http: ChildProcess;

  beforeAll(async () => {
    http = spawn(process.execPath, [SERVER, 'http', '0', 'sse'], { stdio: ['ignore', 'ignore', 'inherit'] });
    const port = await boundPort(http, 'the MCP test server');
    directory = mkdtempSync(join(tmpdir(), 'mcp-faults-'));
    const config = join(directory, 'mcp-tools.yaml');
    const tools = '[echo, hang, huge, bad_json, wrong_shape, not_jsonrpc]';
    writeFileSync(
      config,
      [
        'harness:',
        '  mcp-tools:',
        '    servers:',
        '      local:',
        `        command: ${JSON.stringify(process.execPath)}`,
        `        args: [${JSON.stringify(SERVER)}, stdio]`,
        '        timeout-ms: 15000',
        `        tools: ${tools}`,
        '      remote:',
        `        url: http://127.0.0.1:${port}/mcp`,
        '        timeout-ms: 4000',
        `        tools: ${tools}`,
        '',
      ].join('\n'),
    );
    const running = await startApp({
      LLM_BASE_URL: await stub.start(),
      MCP_TOOLS_CONFIG: config,
      HARNESS_MCP_MAX_RESPONSE_BYTES: String(256 * 1024),
    });
    app = running.app;
    baseUrl = running.baseUrl;
  });
  afterAll(async () => {
    await app?.close();
    http?.kill();
    await stub.stop();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('turns each fault into its own Tool ERROR and releases the report on the call that worked', async () => {
    const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({
      id,
      name,
      arguments: args,
    });
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [
          {
            content: 'ask both MCP servers',
            tool_calls: [
              call('call_local_huge', 'mcp_local_huge', { bytes: 8 * 1024 * 1024 }),
              call('call_local_bad_json', 'mcp_local_bad_json'),
              call('call_local_wrong_shape', 'mcp_local_wrong_shape'),
              call('call_remote_huge', 'mcp_remote_huge', { bytes: 8 * 1024 * 1024 }),
              call('call_remote_bad_json', 'mcp_remote_bad_json'),
              call('call_remote_wrong_shape', 'mcp_remote_wrong_shape'),
              call('call_remote_hang', 'mcp_remote_hang'),
              call('call_remote_echo', 'mcp_remote_echo', { text: 'order-service HikariPool exhausted' }),
            ],
          },
          {
            content: draftJson({
              cite: ['call_remote_echo'],
              text: 'the remote server reports order-service HikariPool exhausted',
            }),
          },
        ],
        'semantic-guard': [SUPPORTED],
      },
    });
    const response = await postChat(baseUrl, { query: 'order-123 payment times out, find out why' });
    const runId = String(response.events[0].data.run_id);
    const store = app.get(InvocationStore);
    const codes: Record<string, unknown> = {};
    for (const id of [
      'call_local_huge',
      'call_local_bad_json',
      'call_local_wrong_shape',
      'call_remote_huge',
      'call_remote_bad_json',
      'call_remote_wrong_shape',
      'call_remote_hang',
      'call_remote_echo',
    ])
      codes[id] = (await store.get(runId, id))?.error_code ?? (await store.get(runId, id))?.status;
    expect(codes).toEqual({
      call_local_huge: 'MCP_RESULT_TOO_LARGE',
      call_local_bad_json: 'MCP_PARSE_ERROR',
      call_local_wrong_shape: 'MCP_BAD_RESPONSE',
      call_remote_huge: 'MCP_RESULT_TOO_LARGE',
      call_remote_bad_json: 'MCP_PARSE_ERROR',
      call_remote_wrong_shape: 'MCP_BAD_RESPONSE',
      call_remote_hang: 'MCP_TIMEOUT',
      call_remote_echo: 'READY',
    });
    expect(response.events.at(-2)?.data).toMatchObject({ content_type: 'DIAGNOSIS_REPORT' });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
  });
});
