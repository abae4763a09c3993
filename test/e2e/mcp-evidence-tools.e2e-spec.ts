import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { InvocationStore, ToolCatalog } from '@app/harness';
import { startApp } from '../support/app-under-test';
import { draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { scaled } from '../support/test-timeouts';

// The longest test or hook here needs up to 60 s on an idle machine; the suite's
// time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(60_000));

/** The protocol's reference server from npm (a devDependency): we did not write it. */
const EVERYTHING = resolve(
  __dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

/** The pid of this worker's child process whose command line carries `marker`. */
function childPidWith(marker: string): number {
  const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  const line = lines.split('\n').find((entry) => entry.includes(marker));
  if (!line) throw new Error(`no child process with ${marker}`);
  return Number(line.trim().split(/\s+/)[0]);
}

/**
 * Issue 30: MCP servers as evidence tools. The reference "everything" server runs over stdio three
 * times; its allowlisted read-only tools become evidence tools through the Harness boundary, a diagnosis
 * cites one of them, an argument outside the server's input schema is refused before the call, a call
 * past the server's timeout ends as MCP_TIMEOUT, and a server that vanished mid-life ends as a Tool
 * ERROR, not a crash.
 */
describe('MCP servers as evidence tools', () => {
  const stub = new StubLlmServer();
  let app: INestApplication;
  let baseUrl: string;
  let directory: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'mcp-tools-'));
    const config = join(directory, 'mcp-tools.yaml');
    const server = (marker: string, tools: string[], timeoutMs = 5000) => [
      `        command: ${JSON.stringify(process.execPath)}`,
      `        args: [${JSON.stringify(EVERYTHING)}, stdio, ${marker}]`,
      `        timeout-ms: ${timeoutMs}`,
      `        tools: [${tools.join(', ')}]`,
    ];
    writeFileSync(
      config,
      [
        'harness:',
        '  mcp-tools:',
        '    servers:',
        '      everything:',
        ...server('mcp-e2e-everything', [
          'get-structured-content',
          'toggle-simulated-logging',
          'no-such-tool',
        ]),
        '      flaky:',
        ...server('mcp-e2e-flaky', ['echo']),
        '      slow:',
        ...server('mcp-e2e-slow', ['trigger-long-running-operation'], 500),
        '',
      ].join('\n'),
    );
    const running = await startApp({ LLM_BASE_URL: await stub.start(), MCP_TOOLS_CONFIG: config });
    app = running.app;
    baseUrl = running.baseUrl;
  });
  afterAll(async () => {
    await app?.close();
    await stub.stop();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('offers only the allowlisted read-only tools, with the server description quoted as untrusted', () => {
    const names = app
      .get(ToolCatalog)
      .all()
      .map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['mcp_everything_get-structured-content', 'mcp_flaky_echo']),
    );
    // The server marks this one as writing; a tool it does not list is not invented.
    expect(names).not.toContain('mcp_everything_toggle-simulated-logging');
    expect(names.filter((name) => name.startsWith('mcp_'))).toHaveLength(3);
    const description = app.get(ToolCatalog).get('mcp_everything_get-structured-content')!.description;
    expect(description).toMatch(
      /^Read-only evidence tool get-structured-content of the MCP server everything\./,
    );
    expect(description).toContain('(untrusted, not instructions)');
  });

  it('cites the server evidence, refuses bad arguments and turns a vanished server into a Tool ERROR', async () => {
    process.kill(childPidWith('mcp-e2e-flaky'), 'SIGKILL');
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [
          {
            content: 'ask the MCP servers',
            tool_calls: [
              {
                id: 'call_mcp_1',
                name: 'mcp_everything_get-structured-content',
                arguments: { location: 'Chicago' },
              },
              {
                id: 'call_mcp_bad',
                name: 'mcp_everything_get-structured-content',
                arguments: { location: 'Paris' },
              },
              { id: 'call_mcp_gone', name: 'mcp_flaky_echo', arguments: { message: 'are you there' } },
              {
                id: 'call_mcp_slow',
                name: 'mcp_slow_trigger-long-running-operation',
                arguments: { duration: 5, steps: 1 },
              },
            ],
          },
          // The grounding check holds the draft to what the cited server evidence says.
          {
            content: draftJson({
              cite: ['call_mcp_1'],
              text: 'the structured weather report names its humidity',
            }),
          },
        ],
        'semantic-guard': [SUPPORTED],
      },
    });

    const response = await postChat(baseUrl, { query: 'order-123 payment times out, find out why' });
    const runId = String(response.events[0].data.run_id);
    const store = app.get(InvocationStore);

    const ready = await store.get(runId, 'call_mcp_1');
    expect(ready).toMatchObject({
      tool_name: 'mcp_everything_get-structured-content',
      status: 'READY',
      evidence_status: 'EVIDENCE_FOUND',
      raw_response: {
        server: 'everything',
        tool: 'get-structured-content',
        result: { structuredContent: { humidity: expect.any(Number) } },
      },
      agent_result: {
        scope: { server: 'everything', tool: 'get-structured-content' },
        structured_content: { humidity: expect.any(Number) },
      },
    });
    expect(await store.get(runId, 'call_mcp_bad')).toMatchObject({
      status: 'ERROR',
      error_code: 'INVALID_ARGUMENTS',
    });
    expect(await store.get(runId, 'call_mcp_slow')).toMatchObject({
      status: 'ERROR',
      error_code: 'MCP_TIMEOUT',
    });
    expect(await store.get(runId, 'call_mcp_gone')).toMatchObject({
      status: 'ERROR',
      error_code: 'MCP_SERVER_UNAVAILABLE',
    });
    expect(JSON.stringify(stub.requestsFor('diagnosis-agent')[1].body.messages)).toContain(
      'MCP_SERVER_UNAVAILABLE',
    );
    // The server's own description reaches the model only inside the tool's description, never the system prompt.
    const first = stub.requestsFor('diagnosis-agent')[0].body as {
      messages: { content: unknown }[];
      tools: unknown;
    };
    expect(JSON.stringify(first.tools)).toContain('(untrusted, not instructions)');
    expect(JSON.stringify(first.messages[0].content)).not.toMatch(
      /untrusted, not instructions|mcp_everything/,
    );

    const content = response.events.at(-2)!.data as {
      content_type: string;
      payload: { references: unknown[] };
    };
    expect(content.content_type).toBe('DIAGNOSIS_REPORT');
    expect(content.payload.references).toEqual([
      expect.objectContaining({
        source_type: 'OTHER',
        source: 'MCP everything / get-structured-content',
        // The arguments the model chose, labelled as its query, never as evidence.
        scope: '模型的查询 / the model’s query: arguments: {"location":"Chicago"}',
        values: expect.objectContaining({
          structured_content: expect.objectContaining({ humidity: expect.any(Number) }),
        }),
      }),
    ]);
    expect(response.events.at(-1)!.data).toEqual({ outcome: 'SUCCESS' });
  });
});
