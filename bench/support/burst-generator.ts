/**
 * The burst load generator, run as its own process (never inside the service): opens STREAMS chat
 * streams against BASE_URL at the same moment and reads each to its end. Prints `all-first-events` on
 * stderr once every stream has had its first event or ended (the bench then measures the service's
 * memory with every stream open), and one JSON line with every stream's sample on stdout.
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
  /** The connection error's code (ECONNRESET, ECONNREFUSED, UND_ERR_SOCKET, …), or null. */
  error: string | null;
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

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  return (
    cause?.code ?? (error as { code?: string }).code ?? (error instanceof Error ? error.name : 'UNKNOWN')
  );
}

async function oneStream(config: BurstConfig, firstSeen: () => void): Promise<BurstSample> {
  const t0 = performance.now();
  const sample: BurstSample = {
    status: 0,
    error: null,
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
  try {
    const response = await fetch(`${config.baseUrl}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': config.apiKey },
      body: JSON.stringify({ query: config.query }),
    });
    sample.status = response.status;
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
      await response.text();
      seen();
      sample.outcome = `HTTP_${response.status}`;
      sample.totalMs = performance.now() - t0;
      return sample;
    }
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of response.body) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      if (sample.firstEvent === null) {
        const first = /event: (\w+)\n/.exec(text);
        if (first) {
          sample.firstEvent = first[1];
          sample.firstEventMs = performance.now() - t0;
          seen();
        }
      }
      if (sample.metadataMs === null && text.includes('event: metadata')) {
        sample.metadataMs = performance.now() - t0;
      }
    }
    sample.queuedEvents = text.split('event: queued\n').length - 1;
    sample.runId = /"run_id":"([^"]+)"/.exec(text)?.[1] ?? '';
    sample.outcome = /event: done\ndata: \{"outcome":"([A-Z]+)"/.exec(text)?.[1] ?? 'NO_DONE';
    const failure = /event: failure\ndata: \{"code":"([A-Z_]+)"/.exec(text)?.[1];
    if (failure) sample.outcome = `${sample.outcome}:${failure}`;
  } catch (error) {
    sample.error = errorCode(error);
    sample.outcome = 'ERROR';
  }
  seen();
  sample.totalMs = performance.now() - t0;
  return sample;
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
