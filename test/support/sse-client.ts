export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

export interface ChatResponse {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** The body as JSON, for responses that are not event streams (400, 503). */
  json?: Record<string, unknown>;
  text: string;
}

/** Parses a text/event-stream body into named events; comment lines (heartbeats) are skipped. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => line && !line.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** POSTs to /api/chat over real HTTP and reads the whole stream (or stops when `stopWhen` says so, closing the connection). */
export async function postChat(
  baseUrl: string,
  body: unknown,
  options: { stopWhen?: (events: SseEvent[]) => boolean; signal?: AbortSignal; apiKey?: string | null } = {},
): Promise<ChatResponse> {
  const controller = new AbortController();
  options.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const response = await fetch(`${baseUrl}/api/chat`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.apiKey === null
        ? {}
        : { 'x-api-key': options.apiKey ?? process.env.TEST_CHAT_API_KEY ?? '' }),
    },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      events: [],
      json: JSON.parse(text) as Record<string, unknown>,
      text,
    };
  }
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (options.stopWhen?.(parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2)))) {
        controller.abort();
        break;
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  const complete = text.slice(0, text.lastIndexOf('\n\n') + 2);
  return { status: response.status, headers: response.headers, events: parseSse(complete), text };
}
