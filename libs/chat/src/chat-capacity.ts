/** The answer to a request for a chat slot. */
export type Admission =
  | { granted: true; release: () => void }
  /** AT_CAPACITY: every slot and queue place is taken; KEY_SHARE_FULL: this key holds its whole share. */
  | { granted: false; reason: 'AT_CAPACITY' | 'KEY_SHARE_FULL' };

/**
 * Bounded concurrency for chat runs: `maxInFlight` at once, up to `maxQueue` waiting in order, and an
 * immediate refusal beyond that. One API key holds at most `maxPerKey` of the running and queued places
 * together, so a single caller cannot take the whole service and starve every other key. A waiter whose
 * client leaves gives its place up.
 */
export class ChatCapacity {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  /** Running + queued places per key; a key with none is not kept. */
  private readonly perKey = new Map<string, number>();

  constructor(
    private readonly maxInFlight: number,
    private readonly maxQueue: number,
    private readonly maxPerKey: number = maxInFlight + maxQueue,
  ) {}

  /** Resolves with a release function once a slot is free, or a refusal at once. */
  acquire(key: string, signal: AbortSignal): Promise<Admission> {
    const held = this.perKey.get(key) ?? 0;
    if (held >= this.maxPerKey) return Promise.resolve({ granted: false, reason: 'KEY_SHARE_FULL' });
    if (this.inFlight < this.maxInFlight) {
      this.inFlight += 1;
      this.perKey.set(key, held + 1);
      return Promise.resolve({ granted: true, release: this.releaser(key) });
    }
    if (this.waiting.length >= this.maxQueue)
      return Promise.resolve({ granted: false, reason: 'AT_CAPACITY' });
    this.perKey.set(key, held + 1);
    return new Promise((resolve) => {
      const grant = () => {
        signal.removeEventListener('abort', leave);
        this.inFlight += 1;
        resolve({ granted: true, release: this.releaser(key) });
      };
      const leave = () => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        this.giveBack(key);
        resolve({ granted: false, reason: 'AT_CAPACITY' });
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', leave, { once: true });
    });
  }

  get load(): { inFlight: number; queued: number; keys: number } {
    return { inFlight: this.inFlight, queued: this.waiting.length, keys: this.perKey.size };
  }

  private giveBack(key: string): void {
    const held = (this.perKey.get(key) ?? 1) - 1;
    if (held <= 0) this.perKey.delete(key);
    else this.perKey.set(key, held);
  }

  private releaser(key: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      this.giveBack(key);
      this.waiting.shift()?.();
    };
  }
}
