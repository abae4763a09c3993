/** The answer to a request for a chat slot. */
export type Admission =
  | { granted: true; release: () => void }
  /** AT_CAPACITY: every slot and queue place is taken; KEY_SHARE_FULL: this key holds its share of the queue. */
  | { granted: false; reason: 'AT_CAPACITY' | 'KEY_SHARE_FULL' };

/** A request's place in the queue, while it waits. */
export interface QueueTicket {
  /** Requests queued before this one that still wait; -1 once it has left the queue. */
  ahead(): number;
}

interface Waiter {
  key: string;
  grant: () => void;
}

/**
 * Bounded concurrency for chat runs: `maxInFlight` at once, up to `maxQueue` waiting, and an immediate
 * refusal beyond that. Fair between API keys without wasting capacity: a free slot goes to whoever asks
 * (a single-key deployment can use every slot), but one key holds at most `maxQueuedPerKey` queue places,
 * and a slot that frees goes to the waiter whose key has the fewest runs in flight (first come among
 * equals), so a key flooding the service cannot starve the others. A waiter whose client leaves gives its
 * place up.
 */
export class ChatCapacity {
  private readonly waiting: Waiter[] = [];
  /** Runs in flight per key; a key with none is not kept. */
  private readonly running = new Map<string, number>();
  private inFlight = 0;

  constructor(
    private readonly maxInFlight: number,
    private readonly maxQueue: number,
    private readonly maxQueuedPerKey: number = maxQueue,
  ) {}

  /**
   * Resolves with a release function once a slot is free, or a refusal at once. `onQueued` is called
   * synchronously when the request has to wait, with its place in the queue.
   */
  acquire(key: string, signal: AbortSignal, onQueued?: (ticket: QueueTicket) => void): Promise<Admission> {
    if (this.inFlight < this.maxInFlight) return Promise.resolve(this.admit(key));
    if (this.waiting.length >= this.maxQueue)
      return Promise.resolve({ granted: false, reason: 'AT_CAPACITY' });
    if (this.waiting.filter((waiter) => waiter.key === key).length >= this.maxQueuedPerKey) {
      return Promise.resolve({ granted: false, reason: 'KEY_SHARE_FULL' });
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        key,
        grant: () => {
          signal.removeEventListener('abort', leave);
          resolve(this.admit(key));
        },
      };
      const leave = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve({ granted: false, reason: 'AT_CAPACITY' });
      };
      this.waiting.push(waiter);
      signal.addEventListener('abort', leave, { once: true });
      onQueued?.({ ahead: () => this.waiting.indexOf(waiter) });
    });
  }

  get load(): { inFlight: number; queued: number; keys: number } {
    return { inFlight: this.inFlight, queued: this.waiting.length, keys: this.running.size };
  }

  private admit(key: string): Admission {
    this.inFlight += 1;
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
    let released = false;
    return {
      granted: true,
      release: () => {
        if (released) return;
        released = true;
        this.inFlight -= 1;
        const left = (this.running.get(key) ?? 1) - 1;
        if (left <= 0) this.running.delete(key);
        else this.running.set(key, left);
        this.next()?.grant();
      },
    };
  }

  /** The waiter to grant a freed slot to: the first of those whose key has the fewest runs in flight. */
  private next(): Waiter | undefined {
    let chosen = -1;
    let fewest = Infinity;
    for (const [index, waiter] of this.waiting.entries()) {
      const inFlight = this.running.get(waiter.key) ?? 0;
      if (inFlight < fewest) [chosen, fewest] = [index, inFlight];
    }
    return chosen < 0 ? undefined : this.waiting.splice(chosen, 1)[0];
  }
}
