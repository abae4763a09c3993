import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/** One request a receiver got, as it arrived. */
export interface ReceivedRequest {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/** What a receiver answers: a status and body, or no answer at all (the sender's timeout fires). */
export type ReceiverAnswer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/**
 * A loopback HTTP server standing in for a vendor's webhook (one per vendor kind): it records every
 * request and answers from a script chosen by the request (path and query), so one receiver can play a
 * healthy target and a failing one. Requests it has no script for are answered 599 (and recorded).
 */
export class NotificationReceiver {
  readonly requests: ReceivedRequest[] = [];
  private server: Server | null = null;
  private readonly hanging = new Set<ServerResponse>();
  private baseUrl = '';

  constructor(private readonly script: (request: ReceivedRequest, seen: number) => ReceiverAnswer) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://receiver');
        const request: ReceivedRequest = {
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        const seen = this.requests.filter((earlier) => sameTarget(earlier, request)).length;
        this.requests.push(request);
        const answer = this.script(request, seen);
        if (answer === 'hang') {
          this.hanging.add(res);
          res.on('close', () => this.hanging.delete(res));
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    this.baseUrl = `http://127.0.0.1:${port}`;
    return this.baseUrl;
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  async stop(): Promise<void> {
    this.hanging.forEach((res) => res.destroy());
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Two requests for the same target: same path and same credential query (WeCom's key, DingTalk's token). */
function sameTarget(a: ReceivedRequest, b: ReceivedRequest): boolean {
  return (
    a.path === b.path &&
    a.query.get('key') === b.query.get('key') &&
    a.query.get('access_token') === b.query.get('access_token')
  );
}
