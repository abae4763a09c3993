import { connect } from 'node:net';

/**
 * The burst load generator, run as its own process (never inside the service): opens STREAMS chat
 * streams against BASE_URL at the same moment and reads each to its end. Prints `all-first-events` on
 * stderr once every stream has had its first event or ended (the bench then measures the service's
 * memory with every stream open), and one JSON line with every stream's sample on stdout.
 *
 * Each stream is its own TCP connection carrying one HTTP/1.1 request (`Connection: close`), written
 * and read on the socket directly: on a 2-core machine the generator shares the service's cores, and
 * fetch (undici) costs about 2 ms of CPU per stream — as much as the service spends on it — where a
 * plain socket costs a small fraction of that. The response is parsed as far as the samples need:
 * status line, headers, chunked or plain body, SSE event names.
 *
 * Config comes as one JSON argument: {baseUrl, apiKey, query, streams}.
 */
export interface BurstConfig {
  baseUrl: string;
  apiKey: string;
  query: string;
  streams: number;
}

export interface BurstSample {
  /** HTTP status, or 0 when the connection failed. */
  status: number;
  /** The connection error's code (ECONNRESET, ECONNREFUSED, NO_RESPONSE, …), or null. */
  error: string | null;
  /** Time from the start to the TCP connection being established (ms); null without one. */
  connectedMs: number | null;
  /** Name of the first SSE event, or null. */
  firstEvent: string | null;
  /** Time from sending the request to the first SSE event (ms); null without one. */
  firstEventMs: number | null;
  /** Time to the `metadata` event (ms); null without one. */
  metadataMs: number | null;
  /** `queued` events the stream carried. */
  queuedEvents: number;
  /** The `done` outcome (FAILED:<failure code>), or NO_DONE / HTTP_<status> / ERROR. */
  outcome: string;
  runId: string;
  totalMs: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** The status and headers of a response head (lower-case names), or null when it is not HTTP/1.x. */
export function parseHead(head: string): { status: number; headers: Map<string, string> } | null {
  const [statusLine, ...lines] = head.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (!status) return null;
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(status), headers };
}

/** The payload of a complete chunked body (chunk extensions and trailers ignored); null when it is cut short. */
export function dechunk(body: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) return null;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1').split(';')[0], 16);
    if (!Number.isFinite(size)) return null;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (start + size + 2 > body.length) return null;
    parts.push(body.subarray(start, start + size));
    at = start + size + 2;
  }
}

function oneStream(config: BurstConfig, firstSeen: () => void): Promise<BurstSample> {
  const url = new URL(config.baseUrl);
  const body = Buffer.from(JSON.stringify({ query: config.query }));
  const request = Buffer.concat([
    Buffer.from(
      `POST /api/chat HTTP/1.1\r\nHost: ${url.host}\r\ncontent-type: application/json\r\n` +
        `x-api-key: ${config.apiKey}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
    ),
    body,
  ]);
  const sample: BurstSample = {
    status: 0,
    error: null,
    connectedMs: null,
    firstEvent: null,
    firstEventMs: null,
    metadataMs: null,
    queuedEvents: 0,
    outcome: 'ERROR',
    runId: '',
    totalMs: NaN,
  };
  let signalled = false;
  const seen = () => {
    if (!signalled) firstSeen();
    signalled = true;
  };
  return new Promise((resolve) => {
    const t0 = performance.now();
    const chunks: Buffer[] = [];
    let bodyStart = -1;
    let eventStream = false;
    let scanned = 0;
    const socket = connect({ host: url.hostname, port: Number(url.port) }, () => {
      sample.connectedMs = performance.now() - t0;
      socket.write(request);
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (bodyStart < 0) {
        const received = Buffer.concat(chunks);
        chunks.splice(0, chunks.length, received);
        const end = received.indexOf(HEADER_END);
        if (end < 0) return;
        const head = parseHead(received.subarray(0, end).toString('latin1'));
        if (!head) return socket.destroy(Object.assign(new Error('not HTTP'), { code: 'NOT_HTTP' }));
        sample.status = head.status;
        eventStream = head.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
        bodyStart = end + HEADER_END.length;
        scanned = bodyStart;
      }
      if (!eventStream || sample.metadataMs !== null) return;
      // Event names are ASCII and each event is one chunk, so the raw bytes can be searched as they come.
      const received = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      chunks.splice(0, chunks.length, received);
      const text = received.subarray(Math.max(bodyStart, scanned - 16)).toString('latin1');
      scanned = received.length;
      if (sample.firstEvent === null) {
        const first = /event: (\w+)\n/.exec(text);
        if (first) {
          sample.firstEvent = first[1];
          sample.firstEventMs = performance.now() - t0;
          seen();
        }
      }
      if (text.includes('event: metadata\n')) sample.metadataMs = performance.now() - t0;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      sample.error = error.code ?? error.name;
    });
    socket.on('close', () => {
      sample.totalMs = performance.now() - t0;
      if (sample.error === null && bodyStart < 0) sample.error = 'NO_RESPONSE';
      if (sample.error !== null) {
        sample.outcome = 'ERROR';
      } else if (!eventStream) {
        sample.outcome = `HTTP_${sample.status}`;
      } else {
        const received = Buffer.concat(chunks).subarray(bodyStart);
        const payload = dechunk(received);
        const text = (payload ?? received).toString('utf8');
        sample.queuedEvents = text.split('event: queued\n').length - 1;
        sample.runId = /"run_id":"([^"]+)"/.exec(text)?.[1] ?? '';
        sample.outcome = /event: done\ndata: \{"outcome":"([A-Z]+)"/.exec(text)?.[1] ?? 'NO_DONE';
        const failure = /event: failure\ndata: \{"code":"([A-Z_]+)"/.exec(text)?.[1];
        if (failure) sample.outcome = `${sample.outcome}:${failure}`;
        if (payload === null) sample.outcome = `${sample.outcome}:CUT_SHORT`;
      }
      seen();
      resolve(sample);
    });
  });
}

export async function runBurst(config: BurstConfig): Promise<BurstSample[]> {
  let pending = config.streams;
  const firstSeen = () => {
    pending -= 1;
    if (pending === 0) process.stderr.write('all-first-events\n');
  };
  return Promise.all(Array.from({ length: config.streams }, () => oneStream(config, firstSeen)));
}

if (require.main === module) {
  runBurst(JSON.parse(process.argv[2]) as BurstConfig)
    .then((samples) => process.stdout.write(`${JSON.stringify(samples)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`burst generator failed: ${String(error)}\n`);
      process.exit(1);
    });
}
