import { readFile } from 'node:fs/promises';
import { ConfigValidationError } from '@app/config';

/** Node's own default, and the floor of the derived backlog: a small service keeps what it had. */
export const NODE_DEFAULT_BACKLOG = 511;
/** The largest backlog Linux accepts in `somaxconn` on every kernel this service supports. */
export const MAX_BACKLOG = 65_535;
const SOMAXCONN = '/proc/sys/net/core/somaxconn';

/**
 * The listen backlog: how many connections the kernel holds while the event loop has not accepted them
 * yet. A burst as large as the admission capacity (running + queued) must fit, and twice that, because the
 * clients refused beyond it (503/429) connect too and must be accepted to hear so. HTTP_LISTEN_BACKLOG
 * overrides it, but never below the admission capacity: a burst the service admits would otherwise be
 * dropped by the kernel before the service sees it.
 */
export function listenBacklog(
  capacity: { maxInFlight: number; maxQueue: number },
  configured?: number,
): number {
  const admitted = capacity.maxInFlight + capacity.maxQueue;
  if (configured === undefined) return Math.min(MAX_BACKLOG, Math.max(NODE_DEFAULT_BACKLOG, 2 * admitted));
  if (configured < admitted) {
    throw new ConfigValidationError([
      `HTTP_LISTEN_BACKLOG (${configured}) must be at least CHAT_MAX_IN_FLIGHT + CHAT_MAX_QUEUE (${admitted}): the kernel would drop connections the service admits`,
    ]);
  }
  return configured;
}

/** The kernel's cap on every listen backlog, or null where it cannot be read (not Linux, no /proc). */
export async function readSomaxconn(path: string = SOMAXCONN): Promise<number | null> {
  try {
    const value = Number.parseInt((await readFile(path, 'utf8')).trim(), 10);
    return Number.isSafeInteger(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}
