import type { CapacityRejection } from '@app/metrics';

/** The answer to a request for a chat slot. */
export type Admission =
  | { granted: true; release: () => void }
  /** AT_CAPACITY: every slot and queue place is taken; KEY_SHARE_FULL: this key holds its share of the queue. */
  | { granted: false; reason: CapacityRejection };

/** A request's place in the queue, while it waits. */
export interface QueueTicket {
  /** Requests queued before this one that still wait; -1 once it has left the queue. */
  ahead(): number;
}

interface Waiter {
  key: string;
  grant: () => void;
}

/** The bounded share of background (alert-started) runs: at most `maxInFlight` at once, `maxQueue` waiting. */
export interface BackgroundShare {
  maxInFlight: number;
  maxQueue: number;
}

/**
 * A background run's place in its queue, taken synchronously: `admitted` resolves with the slot's release
 * function once a slot is free (or null when the place was cancelled); `cancel` gives the place up.
 */
export interface BackgroundTicket {
  readonly admitted: Promise<(() => void) | null>;
  cancel(): void;
}

const NO_BACKGROUND: BackgroundShare = { maxInFlight: 0, maxQueue: 0 };
/** The key background runs are counted under in the per-key fair share. */
export const BACKGROUND_KEY = 'background:alerts';

/**
 * Bounded concurrency for chat runs: `maxInFlight` at once, up to `maxQueue` waiting, and an immediate
 * refusal beyond that. Fair between API keys without wasting capacity: a free slot goes to whoever asks
 * (a single-key deployment can use every slot), but one key holds at most `maxQueuedPerKey` queue places,
 * and a slot that frees goes to the waiter whose key has the fewest runs in flight (first come among
 * equals), so a key flooding the service cannot starve the others. A waiter whose client leaves gives its
 * place up.
 *
 * Background (alert-started) runs share the same slots but never starve interactive chats: they hold at
 * most `background.maxInFlight` slots (fewer than `maxInFlight`, checked at configuration), wait in their
 * own bounded queue, and a freed slot goes to a waiting interactive chat first.
 */
export class ChatCapacity {
  private readonly waiting: Waiter[] = [];
  private readonly backgroundWaiting: { grant: () => void }[] = [];
  private backgroundInFlight = 0;
  /** Runs in flight per key; a key with none is not kept. */
  private readonly running = new Map<string, number>();
  /** Queue places per key (the waiters of `waiting` by key), so a request's share is checked at once. */
  private readonly queuedPerKey = new Map<string, number>();
  private inFlight = 0;

  constructor(
    private readonly maxInFlight: number,
    private readonly maxQueue: number,
    private readonly maxQueuedPerKey: number = maxQueue,
    private readonly background: BackgroundShare = NO_BACKGROUND,
  ) {}

  /**
   * A place for a background run, or null when its share's queue is full. Admitted at once when a slot is
   * free, no interactive chat waits and the share is not used up; otherwise queued behind every
   * interactive waiter.
   */
  reserveBackground(): BackgroundTicket | null {
    if (this.backgroundAdmissible()) {
      const release = this.admitBackground();
      return { admitted: Promise.resolve(release), cancel: release };
    }
    if (this.backgroundWaiting.length >= this.background.maxQueue) return null;
    let settle!: (release: (() => void) | null) => void;
    const admitted = new Promise<(() => void) | null>((resolve) => (settle = resolve));
    let release: (() => void) | null = null;
    const waiter = {
      grant: () => {
        release = this.admitBackground();
        settle(release);
      },
    };
    this.backgroundWaiting.push(waiter);
    return {
      admitted,
      cancel: () => {
        const index = this.backgroundWaiting.indexOf(waiter);
        if (index >= 0) {
          this.backgroundWaiting.splice(index, 1);
          settle(null);
        } else release?.();
      },
    };
  }

  /**
   * Resolves with a release function once a slot is free, or a refusal at once. `onQueued` is called
   * synchronously when the request has to wait, with its place in the queue.
   */
  acquire(key: string, signal: AbortSignal, onQueued?: (ticket: QueueTicket) => void): Promise<Admission> {
    if (this.inFlight < this.maxInFlight) return Promise.resolve(this.admit(key));
    if (this.waiting.length >= this.maxQueue)
      return Promise.resolve({ granted: false, reason: 'AT_CAPACITY' });
    if ((this.queuedPerKey.get(key) ?? 0) >= this.maxQueuedPerKey) {
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
        if (index >= 0) this.unqueue(index);
        resolve({ granted: false, reason: 'AT_CAPACITY' });
      };
      this.waiting.push(waiter);
      this.queuedPerKey.set(key, (this.queuedPerKey.get(key) ?? 0) + 1);
      signal.addEventListener('abort', leave, { once: true });
      onQueued?.({ ahead: () => this.waiting.indexOf(waiter) });
    });
  }

  get load(): { inFlight: number; queued: number; keys: number } {
    return { inFlight: this.inFlight, queued: this.waiting.length, keys: this.running.size };
  }

  get backgroundLoad(): { inFlight: number; queued: number } {
    return { inFlight: this.backgroundInFlight, queued: this.backgroundWaiting.length };
  }

  private backgroundAdmissible(): boolean {
    return (
      this.inFlight < this.maxInFlight &&
      this.waiting.length === 0 &&
      this.backgroundInFlight < this.background.maxInFlight
    );
  }

  private admitBackground(): () => void {
    this.backgroundInFlight += 1;
    const release = this.admit(BACKGROUND_KEY);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.backgroundInFlight -= 1;
      if (release.granted) release.release();
    };
  }

  /** A freed slot: to a waiting interactive chat first, else to a waiting background run within its share. */
  private grantFreedSlot(): void {
    const chat = this.next();
    if (chat) return chat.grant();
    if (this.backgroundWaiting.length > 0 && this.backgroundAdmissible())
      this.backgroundWaiting.shift()!.grant();
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
        this.grantFreedSlot();
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
    return chosen < 0 ? undefined : this.unqueue(chosen);
  }

  /** Takes the waiter at `index` out of the queue. */
  private unqueue(index: number): Waiter {
    const [waiter] = this.waiting.splice(index, 1);
    const left = (this.queuedPerKey.get(waiter.key) ?? 1) - 1;
    if (left <= 0) this.queuedPerKey.delete(waiter.key);
    else this.queuedPerKey.set(waiter.key, left);
    return waiter;
  }
}
