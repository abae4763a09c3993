/**
 * Bounded concurrency for chat runs: `maxInFlight` at once, up to `maxQueue` waiting in order, and an
 * immediate refusal beyond that. A waiter whose client leaves gives its place up.
 */
export class ChatCapacity {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly maxInFlight: number,
    private readonly maxQueue: number,
  ) {}

  /** Resolves with a release function once a slot is free, or null at once when the queue is full. */
  acquire(signal: AbortSignal): Promise<(() => void) | null> {
    if (this.inFlight < this.maxInFlight) {
      this.inFlight += 1;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.maxQueue) return Promise.resolve(null);
    return new Promise((resolve) => {
      const grant = () => {
        signal.removeEventListener('abort', leave);
        this.inFlight += 1;
        resolve(this.releaser());
      };
      const leave = () => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(null);
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', leave, { once: true });
    });
  }

  get load(): { inFlight: number; queued: number } {
    return { inFlight: this.inFlight, queued: this.waiting.length };
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      this.waiting.shift()?.();
    };
  }
}
