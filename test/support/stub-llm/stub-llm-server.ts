import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  approxTokens,
  checkRequest,
  DEFAULT_PROFILE,
  maxTokensOf,
  ProviderProfile,
  ReplyShape,
  shapeReply,
} from './provider-profiles';
import { parseStubScript, StubReply, StubScript, StubScriptPlayer } from './stub-script';
import { fillTemplate } from './stub-template';

/** The `<!-- role: NAME -->` marker every prompt file starts with (docs/architecture.md "Prompt roles"). */
const ROLE_MARKER = /^<!--\s*role:\s*([a-z0-9-]+)\s*-->/;

export interface RecordedRequest {
  role: string | null;
  path: string;
  body: ChatCompletionRequest;
  receivedAt: number;
}

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
  tool_call_id?: string;
  name?: string;
}

export interface ChatCompletionRequest {
  model?: string;
  messages?: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: unknown[];
  [key: string]: unknown;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'object' && part && 'text' in part ? String(part.text) : ''))
      .join('');
  }
  return '';
}

function lastUserText(body: ChatCompletionRequest): string {
  const users = (body.messages ?? []).filter((message) => message.role === 'user');
  return users.length > 0 ? textOf(users[users.length - 1].content) : '';
}

export function roleOf(body: ChatCompletionRequest): string | null {
  const system = body.messages?.find((message) => message.role === 'system');
  const match = system ? ROLE_MARKER.exec(textOf(system.content).trimStart()) : null;
  return match ? match[1] : null;
}

/**
 * A real HTTP server speaking OpenAI chat completions (plain and `stream: true`), driven by a script:
 * each request is routed by the role marker of its system message and gets that role's next reply.
 * Every request is recorded so tests can assert what each role was sent. The script's `profile`
 * (default deepseek-thinking) decides which real provider's rules the server enforces.
 */
export class StubLlmServer {
  private server: Server | null = null;
  private player = new StubScriptPlayer({ roles: {} });
  private completionCount = 0;
  readonly requests: RecordedRequest[] = [];

  constructor(script?: StubScript) {
    if (script) this.load(script);
  }

  /** Replaces the script and rewinds every role; the request log is kept. */
  load(script: unknown): void {
    this.player = new StubScriptPlayer(parseStubScript(script));
  }

  get profile(): ProviderProfile {
    return this.player.script.profile ?? DEFAULT_PROFILE;
  }

  requestsFor(role: string): RecordedRequest[] {
    return this.requests.filter((request) => request.role === role);
  }

  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) this.sendError(res, 500, 'stub_internal_error', 'stub server failed');
        else res.end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    return this.baseUrl;
  }

  get baseUrl(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('stub LLM server is not running');
    return `http://127.0.0.1:${address.port}/v1`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    const raw = await readBody(req);
    if (path === '/__stub/script' && req.method === 'PUT') {
      try {
        this.load(JSON.parse(raw));
      } catch (error) {
        return this.sendError(res, 400, 'invalid_script', (error as Error).message);
      }
      return sendJson(res, 200, { loaded: true });
    }
    if (path === '/__stub/requests' && req.method === 'GET') {
      return sendJson(res, 200, this.requests);
    }
    if (path === '/__stub/requests' && req.method === 'DELETE') {
      this.requests.length = 0;
      return sendJson(res, 200, { cleared: true });
    }
    const keyRejection = this.checkApiKey(req);
    if (path === '/v1/models' && req.method === 'GET') {
      if (keyRejection) return sendJson(res, 401, keyRejection);
      const models = this.player.script.models ?? [];
      return sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'stub' })),
      });
    }
    if (path !== '/v1/chat/completions' || req.method !== 'POST') {
      return this.sendError(res, 404, 'not_found', `no route ${req.method} ${path}`);
    }
    let body: ChatCompletionRequest;
    try {
      body = JSON.parse(raw) as ChatCompletionRequest;
    } catch {
      return this.sendError(res, 400, 'invalid_json', 'request body is not JSON');
    }
    const role = roleOf(body);
    this.requests.push({ role, path, body, receivedAt: Date.now() });
    if (!role) {
      return this.sendError(res, 400, 'no_role', 'the system message must start with <!-- role: NAME -->');
    }
    if (keyRejection) return sendJson(res, 401, keyRejection);
    if (this.player.script.models && !this.player.script.models.includes(String(body.model))) {
      return sendJson(res, 404, {
        error: {
          message: `The model \`${String(body.model)}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found',
        },
      });
    }
    const rejection = checkRequest(this.profile, body);
    if (rejection) return sendJson(res, rejection.status, rejection.body);
    const turn = (body.messages ?? []).filter((message) => message.role === 'assistant').length;
    const reply = this.player.next(role, lastUserText(body), turn);
    if (!reply) {
      return this.sendError(res, 500, 'stub_exhausted', `stub script has no reply left for role "${role}"`);
    }
    if (reply.delay_ms && !(await waitUnlessClosed(reply.delay_ms, res))) return;
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    if (reply.body !== undefined) {
      if (reply.retry_after !== undefined) res.setHeader('retry-after', reply.retry_after);
      return sendRaw(res, reply.error ?? 200, reply.body);
    }
    if (reply.error) {
      if (reply.retry_after !== undefined) res.setHeader('retry-after', reply.retry_after);
      return sendJson(res, reply.error, {
        error: {
          message: reply.error_message ?? `scripted HTTP ${reply.error} for role "${role}"`,
          type: reply.error_type ?? 'scripted_error',
          code: reply.error_code ?? 'scripted_error',
        },
      });
    }
    const completion = this.buildCompletion(body, reply, { role, turn });
    if (body.stream) this.stream(res, completion, body.stream_options?.include_usage === true);
    else sendJson(res, 200, completion);
  }

  private buildCompletion(
    body: ChatCompletionRequest,
    reply: StubReply,
    context: { role: string; turn: number },
  ) {
    const numbering = this.player.script.tool_call_ids ?? 'scripted';
    const toolCalls = (reply.tool_calls ?? []).map((call, index) => ({
      id: numbering === 'scripted' ? call.id : `call_${numbering === 'per-response' ? index : 0}`,
      type: 'function' as const,
      function: {
        name: call.name,
        // Typed as the wire text; `arguments_as_object` sends the object itself, as llama.cpp does.
        arguments: (typeof call.arguments === 'string' || call.arguments_as_object
          ? call.arguments
          : JSON.stringify(call.arguments)) as string,
      },
    }));
    const content = reply.template
      ? fillTemplate(reply.content ?? '', lastUserText(body))
      : (reply.content ?? '');
    const scripted: ReplyShape = {
      content,
      ...(reply.reasoning_content !== undefined ? { reasoning_content: reply.reasoning_content } : {}),
      tool_calls: toolCalls,
      finish_reason: reply.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      completion_tokens: 0,
    };
    const shaped = shapeReply(this.profile, scripted, maxTokensOf(body), context);
    const usage = reply.usage ?? {
      prompt_tokens: approxTokens(JSON.stringify(body.messages ?? [])),
      completion_tokens: shaped.completion_tokens,
    };
    this.completionCount += 1;
    return {
      id: `chatcmpl-stub-${this.completionCount}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? 'stub',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: shaped.content,
            ...(shaped.reasoning_content !== undefined
              ? { reasoning_content: shaped.reasoning_content }
              : {}),
            ...(shaped.reasoning !== undefined ? { reasoning: shaped.reasoning } : {}),
            ...(shaped.reasoning_details !== undefined
              ? { reasoning_details: shaped.reasoning_details }
              : {}),
            ...(shaped.tool_calls.length > 0 ? { tool_calls: shaped.tool_calls } : {}),
          },
          finish_reason: shaped.finish_reason,
        },
      ],
      ...(reply.omit_usage
        ? {}
        : { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
    };
  }

  private stream(
    res: ServerResponse,
    completion: ReturnType<StubLlmServer['buildCompletion']>,
    includeUsage: boolean,
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const [choice] = completion.choices;
    const base = {
      id: completion.id,
      object: 'chat.completion.chunk',
      created: completion.created,
      model: completion.model,
    };
    const send = (payload: object) => res.write(`data: ${JSON.stringify({ ...base, ...payload })}\n\n`);
    const delta = (value: object, finish: string | null = null) =>
      send({ choices: [{ index: 0, delta: value, finish_reason: finish }] });
    delta({ role: 'assistant', content: '' });
    if (choice.message.reasoning_content) delta({ reasoning_content: choice.message.reasoning_content });
    if (choice.message.reasoning) delta({ reasoning: choice.message.reasoning });
    if (choice.message.content) delta({ content: choice.message.content });
    (choice.message.tool_calls ?? []).forEach((call, index) => {
      delta({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
        ],
      });
      delta({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] });
    });
    delta({}, choice.finish_reason);
    if (includeUsage && completion.usage) send({ choices: [], usage: completion.usage });
    res.end('data: [DONE]\n\n');
  }

  /** OpenAI's answer to a missing or wrong key, or null when the script sets no key or it matches. */
  private checkApiKey(req: IncomingMessage) {
    const expected = this.player.script.api_key;
    if (expected === undefined || req.headers.authorization === `Bearer ${expected}`) return null;
    return {
      error: {
        message:
          'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    };
  }

  private sendError(res: ServerResponse, status: number, code: string, message: string): void {
    sendJson(res, status, { error: { message, type: code, code } });
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A scripted body as it is: a string as text, anything else as JSON. */
function sendRaw(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const type = typeof body === 'string' ? 'text/html' : 'application/json';
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Resolves true after `ms`, or false as soon as the client disconnects. */
function waitUnlessClosed(ms: number, res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(true);
    }, ms);
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    res.once('close', onClose);
  });
}
