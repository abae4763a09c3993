import { ChildProcess, spawn } from 'node:child_process';
import { createParser } from 'eventsource-parser';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessage,
  JSONRPCMessageSchema,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { McpServerErrorData, McpTransportFailure, McpTransportFailureKind } from './mcp-failure';
import { LineReader, requestIdIn } from './mcp-line-reader';
import { readCapped } from '../http/read-capped';

/** Where a transport says what it refused and could not pin on exactly one call (a logger naming the server). */
export type TransportLog = (message: string) => void;

/** A synthetic JSON-RPC error code for answers our transport refused; the class in `data` is what counts. */
const REFUSED_BY_CLIENT = -32099;

/** An error's class and, for a network error, its system code (ECONNREFUSED, …): never its message. */
function errorName(error: unknown): string {
  const { name, cause } = (error ?? {}) as { name?: unknown; cause?: { code?: unknown } };
  const code = typeof cause?.code === 'string' ? ` ${cause.code}` : '';
  return `${typeof name === 'string' ? name : 'error'}${code}`;
}

/**
 * What both transports share: the set of this client's requests still waiting for an answer, every
 * server message checked against the JSON-RPC schema before the client library sees it, and a refused
 * answer turned into an error for the one request it answers (or, when no request can be named, for
 * every one waiting: each of them may have been the one), so a call fails at once with its own class
 * instead of waiting for its timeout.
 */
abstract class BoundedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  protected readonly pending = new Set<RequestId>();

  constructor(
    protected readonly maxMessageBytes: number,
    protected readonly log: TransportLog,
  ) {}

  abstract start(): Promise<void>;
  abstract send(message: JSONRPCMessage): Promise<void>;
  abstract close(): Promise<void>;

  /** Keeps the waiting set in step with what the client sends: a cancelled request waits no more. */
  protected track(message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message)) this.pending.add(message.id);
    else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.pending.delete(requestId);
    }
  }

  /** One message's text from the server; `answering` is the request whose HTTP answer carried it. */
  protected receive(text: string, answering: RequestId | null): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.refuse(
        answering ?? requestIdIn(text),
        'PARSE_ERROR',
        'the server sent a message that is not JSON',
      );
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.refuse(answering ?? idOf(json), 'BAD_RESPONSE', 'the server sent a message that is not JSON-RPC');
      return;
    }
    this.deliver(parsed.data);
  }

  private deliver(message: JSONRPCMessage): void {
    if (isJSONRPCResultResponse(message)) this.pending.delete(message.id);
    if (isJSONRPCErrorResponse(message)) {
      if (message.id !== undefined) this.pending.delete(message.id);
      message = { ...message, error: { ...message.error, data: new McpServerErrorData(message.error.data) } };
    }
    this.onmessage?.(message);
  }

  /** Fails the request `id` answers, or every waiting request when the message names none. */
  protected refuse(id: RequestId | null, kind: McpTransportFailureKind, detail: string): void {
    const failure = new McpTransportFailure(kind, detail);
    if (id !== null) {
      if (this.pending.has(id)) this.failRequest(id, failure);
      else this.log(`${detail}, for no waiting request: dropped`);
      return;
    }
    const waiting = [...this.pending];
    this.log(`${detail}, naming no request: ${waiting.length} waiting call(s) fail`);
    for (const request of waiting) this.failRequest(request, failure);
  }

  protected failRequest(id: RequestId, failure: McpTransportFailure): void {
    this.pending.delete(id);
    this.onmessage?.({
      jsonrpc: '2.0',
      id,
      error: { code: REFUSED_BY_CLIENT, message: failure.detail, data: failure },
    });
  }
}

function idOf(json: unknown): RequestId | null {
  if (typeof json !== 'object' || json === null || !('id' in json)) return null;
  const id = (json as { id: unknown }).id;
  return typeof id === 'number' || typeof id === 'string' ? id : null;
}

export interface StdioServerParameters {
  command: string;
  args: string[];
  cwd: string | undefined;
  env: Record<string, string>;
}

/**
 * MCP over a child process's stdin/stdout, one JSON-RPC message per line. Unlike the SDK's stdio
 * transport (which joins every chunk into one growing buffer and closes the whole connection when a
 * line passes its 10 MiB limit), each line is read in linear time under `maxMessageBytes`: an answer
 * over it fails only the call it answers, the rest of its line is skipped and the server process is kept.
 */
export class BoundedStdioTransport extends BoundedTransport {
  private child: ChildProcess | undefined;
  /** The request an oversized line already failed from its first bytes, so its end does not fail it twice. */
  private overflowFailed = false;

  constructor(
    private readonly server: StdioServerParameters,
    maxMessageBytes: number,
    log: TransportLog,
  ) {
    super(maxMessageBytes, log);
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('the MCP stdio transport is already started'));
    const reader = new LineReader(this.maxMessageBytes, {
      line: (text) => this.receive(text, null),
      overflowStarted: (head) => {
        this.overflowFailed = false;
        const id = requestIdIn(head);
        if (id !== null && this.pending.has(id)) {
          this.overflowFailed = true;
          this.failRequest(id, this.tooLarge());
        }
      },
      overflowEnded: (head, tail) => {
        if (this.overflowFailed) return;
        this.refuse(requestIdIn(head, tail), 'RESULT_TOO_LARGE', this.tooLarge().detail);
      },
    });
    return new Promise((resolve, reject) => {
      const child = spawn(this.server.command, this.server.args, {
        cwd: this.server.cwd,
        env: this.server.env,
        stdio: ['pipe', 'pipe', 'ignore'],
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        this.child = undefined;
        this.pending.clear();
        this.onclose?.();
      });
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('data', (chunk: Buffer) => reader.push(chunk));
    });
  }

  private tooLarge(): McpTransportFailure {
    return new McpTransportFailure(
      'RESULT_TOO_LARGE',
      `the server sent an answer over ${this.maxMessageBytes} bytes`,
    );
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('the MCP server process is not running'));
    this.track(message);
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends stdin, then SIGTERM, then SIGKILL, two seconds apart, as the SDK's own transport does. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const within = (ms: number) =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
    child.stdin?.end();
    await within(2000);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await within(2000);
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

export interface HttpServerParameters {
  url: URL;
  headers: Record<string, string>;
  /** The bound for what the protocol itself does not bound: notifications, replies, closing the session. */
  requestTimeoutMs: number;
}

/**
 * MCP over streamable HTTP, POST only (this client takes no server-initiated stream). Every request
 * has its own HTTP exchange and AbortController: when the client library cancels it (its timeout, or
 * the run's signal) the exchange is aborted and its socket freed, and once its answer arrived the rest
 * of the stream is not read. Bodies are read under `maxMessageBytes` per message (a JSON body, or the
 * bytes since the last event of an event stream); over it the exchange is aborted and the call fails.
 * No retries and no resumption: a stream that breaks fails its call.
 */
export class BoundedHttpTransport extends BoundedTransport {
  sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private readonly exchanges = new Map<RequestId, AbortController>();
  private readonly closing = new AbortController();

  constructor(
    private readonly server: HttpServerParameters,
    maxMessageBytes: number,
    log: TransportLog,
  ) {
    super(maxMessageBytes, log);
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closing.signal.aborted) throw new Error('the MCP HTTP transport is closed');
    this.track(message);
    if (isJSONRPCRequest(message)) {
      const exchange = new AbortController();
      this.exchanges.set(message.id, exchange);
      void this.exchange(message.id, message, exchange);
      return;
    }
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.exchanges.get(requestId)?.abort();
    }
    const response = await this.post(
      message,
      AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.server.requestTimeoutMs)]),
    );
    await response.body?.cancel().catch(() => undefined);
    if (!response.ok) throw new Error(`the MCP server answered HTTP ${response.status} to a notification`);
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = {
      ...this.server.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }

  private post(message: JSONRPCMessage, signal: AbortSignal): Promise<Response> {
    return fetch(this.server.url, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify(message),
      signal,
      redirect: 'error',
    });
  }

  private async exchange(id: RequestId, message: JSONRPCMessage, exchange: AbortController): Promise<void> {
    try {
      const response = await this.post(message, AbortSignal.any([exchange.signal, this.closing.signal]));
      await this.readAnswer(id, response, exchange);
    } catch (error) {
      // Aborted: the client library already ended the call (timeout, cancel) or the transport is closing.
      if (!exchange.signal.aborted && !this.closing.signal.aborted)
        this.refuse(id, 'UNAVAILABLE', `the HTTP exchange failed (${errorName(error)})`);
    } finally {
      // Frees the socket of a stream the server keeps open after the answer.
      exchange.abort();
      this.exchanges.delete(id);
    }
  }

  private async readAnswer(id: RequestId, response: Response, exchange: AbortController): Promise<void> {
    const session = response.headers.get('mcp-session-id');
    if (session) this.sessionId = session;
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      this.refuse(id, 'UNAVAILABLE', `the server answered HTTP ${response.status}`);
      // A session the server no longer knows cannot be used again: the connection is closed and reopened later.
      if (response.status === 404 && this.sessionId) void this.close();
      return;
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type === 'application/json') await this.readJson(id, response);
    else if (type === 'text/event-stream') await this.readEvents(id, response, exchange);
    else {
      await response.body?.cancel().catch(() => undefined);
      this.refuse(id, 'BAD_RESPONSE', `the server answered with content type ${type || '(none)'}`);
      return;
    }
    if (this.pending.has(id)) this.refuse(id, 'BAD_RESPONSE', 'the server ended its answer without a result');
  }

  private async readJson(id: RequestId, response: Response): Promise<void> {
    const text = await readCapped(response, this.maxMessageBytes);
    if (text === null) {
      this.refuse(id, 'RESULT_TOO_LARGE', `the server sent an answer over ${this.maxMessageBytes} bytes`);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.refuse(id, 'PARSE_ERROR', 'the server sent an answer that is not JSON');
      return;
    }
    for (const message of Array.isArray(json) ? json : [json]) this.receive(JSON.stringify(message), id);
  }

  private async readEvents(id: RequestId, response: Response, exchange: AbortController): Promise<void> {
    if (!response.body) return;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let sinceEvent = 0;
    const parser = createParser({
      onEvent: (event) => {
        sinceEvent = 0;
        // An event without data is a keep-alive or a resumption priming event: no message.
        if (event.data.trim() === '') return;
        if (event.event === undefined || event.event === 'message') this.receive(event.data, id);
      },
    });
    try {
      while (this.pending.has(id)) {
        const { done, value } = await reader.read();
        if (done) return;
        sinceEvent += value.byteLength;
        if (sinceEvent > this.maxMessageBytes) {
          this.refuse(id, 'RESULT_TOO_LARGE', `the server sent an event over ${this.maxMessageBytes} bytes`);
          exchange.abort();
          return;
        }
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } finally {
      reader.releaseLock();
    }
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    this.pending.clear();
    if (this.sessionId) {
      // Tells the server the session is over; bounded, and nothing depends on it.
      await fetch(this.server.url, {
        method: 'DELETE',
        headers: this.headers(),
        signal: AbortSignal.timeout(Math.min(1000, this.server.requestTimeoutMs)),
        redirect: 'error',
      })
        .then((response) => response.body?.cancel())
        .catch(() => undefined);
    }
    this.onclose?.();
  }
}
