// A real MCP server (the SDK's own McpServer, over stdio or streamable HTTP) whose tools misbehave on
// purpose, for the fault specs: `node misbehaving-mcp-server.mjs stdio` or `... http <port> [json]`.
// Plain JavaScript so it runs as its own process without a build. Tools (all marked read-only):
//   echo {text}            answers the text
//   hang {}                never answers
//   huge {bytes}           answers one text item of that many bytes, through the SDK
//   bad_json {}            answers its request id with a line / event that is not JSON
//   wrong_shape {}         answers a JSON-RPC result that is not a tool result
//   not_jsonrpc {}         (stdio) writes a JSON line that is no JSON-RPC message and names no request
//   primed_echo {text}     (HTTP) a priming event without data and a comment before the answer event
// Over HTTP, GET /stats answers {open_connections, open_requests, closed_early}: the sockets and requests
// still open, and the requests whose client went away before their answer was complete.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const [mode, portText, responseMode] = process.argv.slice(2);
const readOnly = { readOnlyHint: true };

function newServer() {
  const server = new McpServer({ name: 'misbehaving', version: '1' });
  server.registerTool('echo', { inputSchema: { text: z.string() }, annotations: readOnly }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool(
    'primed_echo',
    { inputSchema: { text: z.string() }, annotations: readOnly },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool('hang', { inputSchema: {}, annotations: readOnly }, () => new Promise(() => undefined));
  server.registerTool(
    'huge',
    { inputSchema: { bytes: z.number().int() }, annotations: readOnly },
    ({ bytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }),
  );
  // Over stdio these write their own raw line and never answer through the SDK; over HTTP the request
  // handler below answers them before the SDK sees them.
  const raw = (line) => (_args, extra) => {
    process.stdout.write(`${line(extra.requestId)}\n`);
    return new Promise(() => undefined);
  };
  server.registerTool(
    'bad_json',
    { inputSchema: {}, annotations: readOnly },
    raw((id) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text",`),
  );
  server.registerTool(
    'wrong_shape',
    { inputSchema: {}, annotations: readOnly },
    raw((id) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: 'not a list' } })),
  );
  server.registerTool(
    'not_jsonrpc',
    { inputSchema: {}, annotations: readOnly },
    raw(() => JSON.stringify({ hello: 'world' })),
  );
  return server;
}

if (mode === 'stdio') {
  await newServer().connect(new StdioServerTransport());
} else if (mode === 'http') {
  const sessions = new Map();
  let closedEarly = 0;
  let openRequests = 0;
  const open = new Set();
  const http = createServer(async (req, res) => {
    if (req.method === 'GET' && req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      res.end(
        JSON.stringify({
          open_connections: open.size - 1,
          open_requests: openRequests,
          closed_early: closedEarly,
        }),
      );
      return;
    }
    openRequests += 1;
    res.on('close', () => {
      openRequests -= 1;
      if (!res.writableFinished) closedEarly += 1;
    });
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }
    const tool = body?.method === 'tools/call' ? body.params?.name : undefined;
    if (tool === 'primed_echo') {
      const answer = {
        jsonrpc: '2.0',
        id: body.id,
        result: { content: [{ type: 'text', text: body.params.arguments.text }] },
      };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\ndata: \n\n: keep-alive\n\n');
      res.end(`event: message\nid: 2\ndata: ${JSON.stringify(answer)}\n\n`);
      return;
    }
    if (tool === 'bad_json' || tool === 'wrong_shape') {
      const data =
        tool === 'bad_json'
          ? `{"jsonrpc":"2.0","id":${JSON.stringify(body.id)},"result":{"content":[`
          : JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { content: 'not a list' } });
      // The stream stays open, as a server that went wrong mid-answer would leave it.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message\ndata: ${data}\n\n`);
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (body?.method !== 'initialize') {
        res.writeHead(404).end();
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: responseMode === 'json',
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.on('connection', (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  http.listen(Number(portText), '127.0.0.1', () =>
    process.stdout.write(`listening ${http.address().port}\n`),
  );
} else {
  process.stderr.write('usage: misbehaving-mcp-server.mjs stdio | http <port> [json]\n');
  process.exit(2);
}
