import { createServer } from 'node:http';
import { answerWithFirstEvent } from './reference-answer';

/**
 * The chat burst bench's reference: a bare node:http server, run as its own process, that answers every
 * request the moment its body has arrived with the SSE head and one `metadata` event (the same bytes
 * the service writes first), then `done` HOLD_MS later. What the burst generator measures against it
 * is what this machine, its kernel and the generator cost before any service code runs.
 *
 *   node bare-sse-server.js <port>    (0: a port the system chooses, which the bench reads off the process)
 */
let served = 0;

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => answerWithFirstEvent(response, (served += 1)));
});
// The service's backlog for the raised limits (2 × (200 + 1000)), so the kernel treats both alike.
server.listen(Number(process.argv[2]), '127.0.0.1', 2400);
