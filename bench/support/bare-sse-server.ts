import { createServer } from 'node:http';

/**
 * The chat burst bench's reference: a bare node:http server, run as its own process, that answers every
 * request the moment its body has arrived with the SSE head and one `metadata` event (the same bytes
 * the service writes first), then `done` HOLD_MS later. What the burst generator measures against it
 * is what this machine, its kernel and the generator cost before any service code runs.
 *
 *   node bare-sse-server.js <port>    (0: a port the system chooses, which the bench reads off the process)
 */
const HOLD_MS = 2000;
let served = 0;

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    served += 1;
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    const ids = { session_id: `reference-session-${served}`, run_id: `reference-run-${served}` };
    response.write(`event: metadata\ndata: ${JSON.stringify(ids)}\n\n`);
    setTimeout(() => response.end('event: done\ndata: {"outcome":"SUCCESS"}\n\n'), HOLD_MS);
  });
});
// The service's backlog for the raised limits (2 × (200 + 1000)), so the kernel treats both alike.
server.listen(Number(process.argv[2]), '127.0.0.1', 2400);
