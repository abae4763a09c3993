import type { Intent } from '@app/contracts';
import type { RunJournal } from '@app/trace';
import { HarnessRetryPolicies } from '../retry/harness-retry-policies';
import { RunCancelled, RunDeadlineExceeded } from './harness-errors';
import { RunLogger } from './run-logger';
import { BudgetLimits, RunBudget } from './run-budget';

export interface RunContextInit {
  sessionId: string;
  runId: string;
  intent?: Intent | null;
  timeoutMs: number;
  limits: Omit<BudgetLimits, 'maxElapsedMs'>;
  retryPolicies: HarnessRetryPolicies;
  /** The run's pending trace rows: every Harness step records into it, phase boundaries flush it. */
  journal: RunJournal;
  /** Aborted when the client goes away: the run becomes cancelled. */
  parentSignal?: AbortSignal;
  /**
   * Where the evidence tools' time windows end, when not "now": an alert-started run's anchor, built by
   * code from the alert's startsAt. Null/absent: the tools' own clock.
   */
  timeAnchor?: Date | null;
  /**
   * Resolves when the service may go on with a run's slow work: the chat's IngressBurst, which holds it
   * while a burst of new connections is still being taken in. Absent: never waits.
   */
  pace?: () => Promise<void>;
}

const NEVER_WAIT = () => Promise.resolve();

/** Owns the deadline timer shared by every view of one run (or of one phase of it). */
class RunLifetime {
  readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  // A phase inherits its run's reason (cancelled or past the deadline); a client's abort is a cancellation.
  private readonly onParentAbort = () => {
    const reason: unknown = this.parent?.reason;
    this.controller.abort(
      reason instanceof RunCancelled || reason instanceof RunDeadlineExceeded ? reason : new RunCancelled(),
    );
  };

  constructor(
    timeoutMs: number,
    private readonly parent?: AbortSignal,
  ) {
    this.timer = setTimeout(() => this.controller.abort(new RunDeadlineExceeded()), timeoutMs);
    this.timer.unref();
    if (parent?.aborted) this.onParentAbort();
    else parent?.addEventListener('abort', this.onParentAbort, { once: true });
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.parent?.removeEventListener('abort', this.onParentAbort);
  }
}

/** The calls of one run that have not ended yet, shared by every view of the run. */
class InFlightCalls {
  private readonly calls = new Set<Promise<void>>();

  add(call: Promise<unknown>): void {
    const forget = () => {
      this.calls.delete(ended);
    };
    const ended: Promise<void> = call.then(forget, forget);
    this.calls.add(ended);
  }

  async settled(maxWaitMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), maxWaitMs);
    });
    try {
      // A call may start another while it ends (a boundary step after a model step): wait until none is left.
      while (this.calls.size > 0) {
        const ended = await Promise.race([Promise.all([...this.calls]).then(() => true as const), timedOut]);
        if (!ended) return false;
      }
      return true;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Everything one run needs, passed explicitly to every Harness call (never ambient).
 * Immutable; the budget's counters and the journal's pending rows are the only state that changes
 * during the run.
 */
export class RunContext {
  readonly signal: AbortSignal;

  private constructor(
    readonly sessionId: string,
    readonly runId: string,
    readonly intent: Intent | null,
    readonly deadline: number,
    readonly budget: RunBudget,
    readonly retryPolicies: HarnessRetryPolicies,
    readonly journal: RunJournal,
    private readonly lifetime: RunLifetime,
    private readonly inFlight: InFlightCalls,
    /** Where the tools' time windows end instead of now (RunContextInit.timeAnchor); null = now. */
    readonly timeAnchor: Date | null,
    private readonly pace: () => Promise<void>,
  ) {
    this.signal = lifetime.controller.signal;
    Object.freeze(this);
  }

  static start(init: RunContextInit): RunContext {
    const startedAt = Date.now();
    const lifetime = new RunLifetime(init.timeoutMs, init.parentSignal);
    const budget = new RunBudget({ ...init.limits, maxElapsedMs: init.timeoutMs }, startedAt);
    return new RunContext(
      init.sessionId,
      init.runId,
      init.intent ?? null,
      startedAt + init.timeoutMs,
      budget,
      init.retryPolicies,
      init.journal,
      lifetime,
      new InFlightCalls(),
      init.timeAnchor ?? null,
      init.pace ?? NEVER_WAIT,
    );
  }

  /** The same run, once routing has decided its intent. */
  withIntent(intent: Intent): RunContext {
    return new RunContext(
      this.sessionId,
      this.runId,
      intent,
      this.deadline,
      this.budget,
      this.retryPolicies,
      this.journal,
      this.lifetime,
      this.inFlight,
      this.timeAnchor,
      this.pace,
    );
  }

  /**
   * The same run with an earlier deadline, `reserveMs` before the run's: the agent loop runs under it so
   * the guards always keep that much time to review a finished draft (or to fall back). Its signal also
   * follows the run's. Close it when the phase ends.
   */
  withTimeReserve(reserveMs: number): RunContext {
    const timeoutMs = Math.max(0, this.deadline - reserveMs - Date.now());
    return new RunContext(
      this.sessionId,
      this.runId,
      this.intent,
      this.deadline - reserveMs,
      this.budget,
      this.retryPolicies,
      this.journal,
      new RunLifetime(timeoutMs, this.signal),
      this.inFlight,
      this.timeAnchor,
      this.pace,
    );
  }

  /** A logger whose lines carry this run's runId and sessionId. */
  logger(context: string): RunLogger {
    return new RunLogger(context, { runId: this.runId, sessionId: this.sessionId });
  }

  remainingMs(now = Date.now()): number {
    return Math.max(0, this.deadline - now);
  }

  /**
   * Throws RunCancelled or RunDeadlineExceeded once the run has been stopped. The clock decides the
   * deadline: on a busy event loop its timer fires late, and a check made in between would otherwise let
   * the next reservation fail as the RUN_TIME budget (the same instant) instead of the deadline.
   */
  throwIfStopped(): void {
    if (this.signal.aborted) throw this.signal.reason;
    if (Date.now() >= this.deadline) throw new RunDeadlineExceeded();
  }

  /**
   * Waits, before a model or tool call, while the service is taking in a burst of new connections
   * (RunContextInit.pace), then throws if the run was stopped meanwhile. Runs already under way leave the
   * event loop to the connections as runs about to start do: each call's work (its request, the parsing of
   * its answer, its records) would otherwise lengthen every loop turn, and the loop accepts one
   * connection a turn. A stopped run does not wait.
   */
  async paced(): Promise<void> {
    this.throwIfStopped();
    await this.pace();
    this.throwIfStopped();
  }

  /**
   * Waits for the pace as `paced()` does, but never throws: for work that has a result to hand on (a
   * model's recorded answer); a run stopped meanwhile stops at its next call. A stopped run does not wait.
   */
  async awaitPace(): Promise<void> {
    if (this.signal.aborted) return;
    await this.pace();
  }

  /**
   * Registers a model or tool call of this run; `settled()` waits for it. A call the run's stop
   * interrupted still records its last step (the ERROR record, TOOL_FINISHED) after the framework has
   * given up on it, and those rows belong before the run's terminal event.
   */
  track<T>(call: Promise<T>): Promise<T> {
    this.inFlight.add(call);
    return call;
  }

  /** True once every tracked call has ended; false when some still run after `maxWaitMs`. */
  settled(maxWaitMs: number): Promise<boolean> {
    return this.inFlight.settled(maxWaitMs);
  }

  /** Releases the deadline timer; call once when the run has reached its terminal state. */
  close(): void {
    this.lifetime.close();
  }
}
