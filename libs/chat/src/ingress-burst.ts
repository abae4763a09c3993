/** A burst: at least BURST_CONNECTIONS new connections accepted within BURST_SPAN_MS. */
export const BURST_CONNECTIONS = 16;
export const BURST_SPAN_MS = 1000;
/** A burst is over once the accept queue is empty and no connection has come for QUIET_MS. */
export const QUIET_MS = 50;
/** How long a run's slow work waits for a burst to be taken in, at most. */
export const MAX_HOLD_MS = 15000;

/**
 * Whether the service is still taking in a burst of new connections, so that admitted runs leave the
 * event loop to it before their slow work starts.
 *
 * Why: the event loop accepts one connection per turn (libuv since 1.45 no longer accepts in a loop,
 * relying on the listening socket staying readable), and a turn lasts as long as the I/O callbacks it
 * runs. While a thousand clients connect at once and the first admitted runs already write rows, call
 * the model and parse its answers, every turn is long and the connections wait in the kernel's accept
 * queue — measured: a third of 1,000 not accepted for up to 60 s, their clients hearing nothing.
 * Holding the admitted runs' work (after their `metadata`) until the burst has been accepted keeps the
 * turns short, so every client gets its first event first.
 *
 * The server reports every accepted connection (`connectionAccepted`). Because every turn accepts while
 * a connection waits, a turn that accepted none saw the accept queue empty. `settled()` resolves at once
 * outside a burst; during one, at the end of a turn that accepted no connection when none has come for
 * QUIET_MS either (connections may still be on their way), or MAX_HOLD_MS after it was asked. A few
 * connections a second never make a burst, and keep-alive requests open no connection at all.
 */
export class IngressBurst {
  /** Accept times of the last BURST_CONNECTIONS connections, oldest first. */
  private readonly accepted: number[] = [];
  private count = 0;
  private readonly waiters: { resolve: () => void; until: number }[] = [];
  private watching = false;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly nextTurn: (callback: () => void) => void = (callback) => setImmediate(callback),
    private readonly after: (ms: number, callback: () => void) => void = (ms, callback) =>
      setTimeout(callback, ms),
  ) {}

  connectionAccepted(): void {
    this.count += 1;
    if (this.accepted.length === BURST_CONNECTIONS) this.accepted.shift();
    this.accepted.push(this.now());
  }

  /** At least BURST_CONNECTIONS connections came within the last BURST_SPAN_MS. */
  get recentBurst(): boolean {
    return this.accepted.length === BURST_CONNECTIONS && this.now() - this.accepted[0] < BURST_SPAN_MS;
  }

  /** Resolves at once outside a burst; otherwise once it has been taken in, or after MAX_HOLD_MS. */
  settled(): Promise<void> {
    if (!this.recentBurst) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ resolve, until: this.now() + MAX_HOLD_MS });
      this.watch();
    });
  }

  private watch(): void {
    if (this.watching) return;
    this.watching = true;
    let seen = this.count;
    const endOfTurn = () => {
      const quietTurn = this.count === seen;
      seen = this.count;
      const now = this.now();
      const sinceLast = now - this.accepted[this.accepted.length - 1];
      const over = quietTurn && sinceLast >= QUIET_MS;
      // Waiters come in the order of their `until`, so the expired ones are a prefix: a turn of a burst
      // costs nothing per waiter (hundreds of runs may wait through thousands of turns).
      let expired = over ? this.waiters.length : 0;
      while (expired < this.waiters.length && this.waiters[expired].until <= now) expired += 1;
      for (const waiter of this.waiters.splice(0, expired)) waiter.resolve();
      if (this.waiters.length === 0) {
        this.watching = false;
      } else if (quietTurn) {
        // The queue is empty: wait out the quiet time without spinning the loop, then judge a fresh turn.
        const wait = Math.min(QUIET_MS - sinceLast, this.waiters[0].until - now);
        this.after(Math.max(1, wait), () => {
          seen = this.count;
          this.nextTurn(endOfTurn);
        });
      } else this.nextTurn(endOfTurn);
    };
    // The first turn judged is the next whole one: the current turn's poll may have accepted before.
    this.nextTurn(() => {
      seen = this.count;
      this.nextTurn(endOfTurn);
    });
  }
}
