import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export type FakePyRagReply = { status?: number; body?: unknown; raw?: string; delayMs?: number };

/** A small local stand-in for the py-rag HTTP service: answers /api/v1/search with queued replies and records requests. */
export class FakePyRagServer {
  private server: Server | null = null;
  readonly replies: FakePyRagReply[] = [];
  readonly requests: { path: string; body: unknown }[] = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    this.requests.push({ path: req.url ?? '', body: text ? (JSON.parse(text) as unknown) : null });
    const reply = this.replies.shift() ?? { status: 500, body: { detail: 'no reply queued' } };
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    res.end(reply.raw ?? JSON.stringify(reply.body ?? {}));
  }
}
