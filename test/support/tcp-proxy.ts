import { createServer, Server, Socket } from 'node:net';

/**
 * A loopback TCP proxy the tests can cut and restore, to take a real service away mid-test, or freeze
 * and thaw: connections stay open but nothing is forwarded either way (a hung server), then everything
 * held back is delivered.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private frozen = false;
  /** Sockets whose incoming bytes are held back (freezeOpen, freezeAnswers). */
  private readonly muted = new Set<Socket>();
  private readonly clients = new Set<Socket>();
  private held: [Socket, Buffer][] = [];
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  async start(port = 0): Promise<number> {
    this.server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      this.clients.add(client);
      client.on('close', () => this.clients.delete(client));
      client.on('data', (chunk: Buffer) => this.forward(upstream, chunk));
      upstream.on('data', (chunk: Buffer) => this.forward(client, chunk));
      client.on('end', () => upstream.end());
      upstream.on('end', () => client.end());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }

  private forward(to: Socket, chunk: Buffer): void {
    if (this.frozen || this.muted.has(to)) this.held.push([to, chunk]);
    else if (!to.destroyed) to.write(chunk);
  }

  /** Chunks held back since the last thaw: how many writes a frozen client has made (e.g. a retry). */
  get heldChunks(): number {
    return this.held.length;
  }

  /** Stops forwarding in both directions; open and new connections hang. */
  freeze(): void {
    this.frozen = true;
  }

  /**
   * Holds back every answer to the connections open now (requests still reach the server): a statement
   * is executed, but its client never hears the result. New connections are not affected.
   */
  freezeAnswers(): void {
    for (const client of this.clients) this.muted.add(client);
  }

  /** Stops moving bytes on the connections open now, which stay open; new connections work. */
  freezeOpen(): void {
    for (const socket of this.sockets) this.muted.add(socket);
  }

  /** Forwards again, delivering what was held back in order. */
  thaw(): void {
    this.frozen = false;
    this.muted.clear();
    const held = this.held;
    this.held = [];
    for (const [to, chunk] of held) if (!to.destroyed) to.write(chunk);
  }

  /** Drops every connection and refuses new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Accepts connections again on the same port. */
  restore(): Promise<number> {
    return this.start(this.port);
  }
}
