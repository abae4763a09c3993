/**
 * The load generator, run as its own process (never inside the service): STREAMS concurrent chat
 * streams against BASE_URL, each one that ends replaced by a new one, for DURATION_S seconds or until
 * COUNT diagnoses have started. Prints one JSON line with every diagnosis' outcome and timings.
 *
 * Config comes as one JSON argument: {baseUrl, apiKey, query, streams, durationS?, count?}.
 */
export interface LoadConfig {
  baseUrl: string;
  apiKey: string;
  query: string;
  streams: number;
  durationS?: number;
  count?: number;
}

export interface DiagnosisSample {
  outcome: string;
  runId: string;
  /** Time from sending the request to the `metadata` event (ms). */
  metadataMs: number;
  totalMs: number;
}

async function oneDiagnosis(config: LoadConfig): Promise<DiagnosisSample> {
  const t0 = performance.now();
  const response = await fetch(`${config.baseUrl}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': config.apiKey },
    body: JSON.stringify({ query: config.query }),
  });
  if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return {
      outcome: `HTTP_${response.status}`,
      runId: '',
      metadataMs: NaN,
      totalMs: performance.now() - t0,
    };
  }
  const decoder = new TextDecoder();
  let text = '';
  let metadataMs = NaN;
  for await (const chunk of response.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    if (Number.isNaN(metadataMs) && text.includes('event: metadata')) metadataMs = performance.now() - t0;
  }
  const totalMs = performance.now() - t0;
  const runId = /"run_id":"([^"]+)"/.exec(text)?.[1] ?? '';
  const outcome = /event: done\ndata: \{"outcome":"([A-Z]+)"/.exec(text)?.[1] ?? 'NO_DONE';
  return { outcome, runId, metadataMs, totalMs };
}

export async function runLoad(config: LoadConfig): Promise<DiagnosisSample[]> {
  const samples: DiagnosisSample[] = [];
  const end = performance.now() + (config.durationS ?? Infinity) * 1000;
  let started = 0;
  const more = () => performance.now() < end && (config.count === undefined || started < config.count);
  await Promise.all(
    Array.from({ length: config.streams }, async () => {
      while (more()) {
        started += 1;
        samples.push(
          await oneDiagnosis(config).catch(() => ({
            outcome: 'ERROR',
            runId: '',
            metadataMs: NaN,
            totalMs: NaN,
          })),
        );
      }
    }),
  );
  return samples;
}

if (require.main === module) {
  runLoad(JSON.parse(process.argv[2]) as LoadConfig)
    .then((samples) => process.stdout.write(`${JSON.stringify(samples)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`load generator failed: ${String(error)}\n`);
      process.exit(1);
    });
}
