import { ApiError, send } from './api-client';
import { decodeChatEvent } from './chat-events';
import type { ChatEvent } from '@app/contracts';
import { SseParser } from './sse-parser';

export interface ChatRequest {
  query: string;
  session_id?: string;
}

/**
 * POST /api/chat and hands each event to `onEvent` as it arrives (EventSource cannot POST, so the body
 * is read from fetch's stream). Resolves when the stream ends, rejects with ApiError when the request is
 * refused; aborting `signal` closes the connection, which the service turns into a CANCELLED run.
 */
export async function streamChat(
  request: ChatRequest,
  apiKey: string,
  signal: AbortSignal,
  onEvent: (event: ChatEvent) => void,
): Promise<void> {
  const response = await send('/api/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': apiKey },
    body: JSON.stringify(request),
    signal,
  });
  if (!response.body) throw new ApiError(response.status, 'The service sent no stream.');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    for (const frame of parser.push(value)) {
      const event = decodeChatEvent(frame);
      if (event) onEvent(event);
    }
  }
}
