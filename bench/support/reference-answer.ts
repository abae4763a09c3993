import type { ServerResponse } from 'node:http';

/** How long a reference server holds a stream open after its first event, before `done`. */
const HOLD_MS = 2000;

/**
 * The chat burst bench's reference answer: the SSE head and one `metadata` event (the bytes the service
 * writes first), then `done` HOLD_MS later. Shared by the bare node:http and the NestJS-only reference.
 */
export function answerWithFirstEvent(response: ServerResponse, served: number): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  const ids = { session_id: `reference-session-${served}`, run_id: `reference-run-${served}` };
  response.write(`event: metadata\ndata: ${JSON.stringify(ids)}\n\n`);
  setTimeout(() => response.end('event: done\ndata: {"outcome":"SUCCESS"}\n\n'), HOLD_MS);
}
