import { Logger } from '@nestjs/common';

/** A burst: at least BURST_CONNECTIONS new connections accepted within BURST_SPAN_MS. */
export const BURST_CONNECTIONS = 16;
export const BURST_SPAN_MS = 1000;
/** A burst is over once the accept queue is empty and no connection has come for QUIET_MS. */
export const QUIET_MS = 50;
/** How long a run's slow work waits for the connections to be taken in, at most. */
export const MAX_HOLD_MS = 15000;
/** A run under way waits out QUIET_MS only after a deep backlog; see `drained`. */
const AFTER_DEEP_BACKLOG = 'after-deep-backlog';

/**
 * Whether the service is still taking in new connections, so that admitted runs leave the event loop to
 * them: before their slow work starts (`settled`), and runs under way before each model or tool call
 * (`drained`, through RunContext's pace).
 *
 * Why: the event loop accepts one connection per turn (libuv since 1.45 no longer accepts in a loop,
 * relying on the listening socket staying readable), and a turn lasts as long as the I/O callbacks it
 * runs. While a thousand clients connect at once and the first admitted runs already write rows, call
 * the model and parse its answers, every turn is long and the connections wait in the kernel's accept
 * queue — measured: a third of 1,000 not accepted for up to 60 s, their clients hearing nothing.
 * Holding the admitted runs' work (after their `metadata`) until the connections have been accepted
 * keeps the turns short, so every client gets its first event first.
 *
 * What is known, turn by turn: the server reports every accepted connection (`connectionAccepted`), and
 * because every turn accepts while a connection waits, a turn that accepted none saw the accept queue
 * empty. So a connection accepted since the last such quiet turn is a backlog: more may be waiting.
 * That evidence does not depend on how fast the turns are — a rate ("16 a second") does, and fails
 * exactly when the service is slow: on a machine whose cores other work takes, turns grew past 1/16 s,
 * the rate read as "no burst", runs started, turns grew longer still and the last quarter of 1,000
 * clients waited ~60 s (measured).
 *
 * `settled()` resolves at once when no connection came since the last quiet turn; otherwise at the end
 * of the next quiet turn — and, during a burst (≥ BURST_CONNECTIONS within BURST_SPAN_MS), only once no
 * connection has come for QUIET_MS either, as clients of a burst may still be on their way; at the
 * latest MAX_HOLD_MS after it was asked. Outside a burst a run waits a turn or two at most; keep-alive
 * requests open no connection at all.
 */
export class IngressBurst {
  /** Accept times of the last BURST_CONNECTIONS connections, oldest first. */
  private readonly accepted: number[] = [];
  private count = 0;
  /** A connection was accepted since the last turn that accepted none. */
  private backlog = false;
  /** Turns in a row that accepted a connection. */
  private acceptingTurns = 0;
  /**
   * At least BURST_CONNECTIONS turns in a row accepted a connection, and no QUIET_MS gap has followed:
   * many connections were taken in at once and are still being answered.
   */
  private deepBacklog = false;
  private readonly waiters: {
    resolve: () => void;
    until: number;
    quietMs: number | typeof AFTER_DEEP_BACKLOG;
  }[] = [];
  private judging = false;
  /** When the last held runs were let go by MAX_HOLD_MS rather than by a quiet turn (logged once a hold). */
  private lastExpiryWarning = -Infinity;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly nextTurn: (callback: () => void) => void = (callback) => setImmediate(callback),
    private readonly after: (ms: number, callback: () => void) => void = (ms, callback) =>
      setTimeout(callback, ms),
    private readonly warn: (message: string) => void = (message) =>
      new Logger(IngressBurst.name).warn(message),
  ) {}

  connectionAccepted(): void {
    const now = this.now();
    this.count += 1;
    if (this.accepted.length > 0 && now - this.accepted[this.accepted.length - 1] >= QUIET_MS) {
      this.deepBacklog = false;
    }
    if (this.accepted.length === BURST_CONNECTIONS) this.accepted.shift();
    this.accepted.push(now);
    this.backlog = true;
    this.judgeTurns();
  }

  /** At least BURST_CONNECTIONS connections came within the last BURST_SPAN_MS. */
  get recentBurst(): boolean {
    return this.accepted.length === BURST_CONNECTIONS && this.now() - this.accepted[0] < BURST_SPAN_MS;
  }

  /** For a run about to start: resolves at once when no connection is waiting to be accepted; see the class comment. */
  settled(): Promise<void> {
    const burst = this.recentBurst;
    if (!burst && !this.backlog) return Promise.resolve();
    return this.hold(burst ? QUIET_MS : 0);
  }

  /**
   * For a run under way, before its next model or tool call: resolves at once when no connection is
   * waiting to be accepted, otherwise at the end of the next turn that accepted none — and, when the
   * queue held many (BURST_CONNECTIONS turns in a row accepted one), only once no connection has come
   * for QUIET_MS either: the last connections taken in are still being read and answered then, and the
   * runs' steps would share those turns. Not on a rate: under a steady stream of new chats (16 a second
   * is a "burst" by rate) the queue rarely holds more than one, and each call would otherwise wait out a
   * quiet gap.
   */
  drained(): Promise<void> {
    return this.backlog ? this.hold(AFTER_DEEP_BACKLOG) : Promise.resolve();
  }

  private hold(quietMs: number | typeof AFTER_DEEP_BACKLOG): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ resolve, until: this.now() + MAX_HOLD_MS, quietMs });
      this.judgeTurns();
    });
  }

  /** Judges each turn's end while a backlog is possible or a run waits. */
  private judgeTurns(): void {
    if (this.judging) return;
    this.judging = true;
    let seen = this.count;
    const endOfTurn = () => {
      const quietTurn = this.count === seen;
      seen = this.count;
      if (quietTurn) {
        this.backlog = false;
        this.acceptingTurns = 0;
      } else if ((this.acceptingTurns += 1) >= BURST_CONNECTIONS) this.deepBacklog = true;
      const now = this.now();
      const sinceLast = now - this.accepted[this.accepted.length - 1];
      // Waiters come in the order of their `until`, so the expired ones are a prefix: a turn that accepted
      // costs nothing per waiter (hundreds of runs may wait through thousands of turns).
      let expired = 0;
      while (expired < this.waiters.length && this.waiters[expired].until <= now) expired += 1;
      const released = this.waiters.splice(0, expired);
      if (expired > 0 && now - this.lastExpiryWarning >= MAX_HOLD_MS) {
        this.lastExpiryWarning = now;
        this.warn(
          `${expired} chat run(s) went on after waiting ${MAX_HOLD_MS} ms for new connections to be accepted: connections kept arriving faster than the service took them in`,
        );
      }
      if (quietTurn) {
        // The accept queue is empty: every run goes whose quiet time has passed, in the order they came.
        const staying: typeof this.waiters = [];
        const afterDeepBacklog = this.deepBacklog ? QUIET_MS : 0;
        for (const waiter of this.waiters) {
          const quietMs = waiter.quietMs === AFTER_DEEP_BACKLOG ? afterDeepBacklog : waiter.quietMs;
          (sinceLast >= quietMs ? released : staying).push(waiter);
        }
        this.waiters.splice(0, this.waiters.length, ...staying);
      }
      for (const waiter of released) waiter.resolve();
      if (this.waiters.length === 0 && !this.backlog) {
        this.judging = false;
      } else if (quietTurn && this.waiters.length > 0) {
        // The queue is empty, a burst's runs wait out the quiet time: a timer, not a spinning loop.
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
