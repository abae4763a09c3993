import type { Intent } from '@app/trace';
import { HarnessRetryPolicies } from '../retry/harness-retry-policies';
import { RunCancelled, RunDeadlineExceeded } from './harness-errors';
import { BudgetLimits, RunBudget } from './run-budget';

export interface RunContextInit {
  sessionId: string;
  runId: string;
  intent?: Intent | null;
  timeoutMs: number;
  limits: Omit<BudgetLimits, 'maxElapsedMs'>;
  retryPolicies: HarnessRetryPolicies;
  /** Aborted when the client goes away: the run becomes cancelled. */
  parentSignal?: AbortSignal;
}

/** Owns the deadline timer shared by every view of one run. */
class RunLifetime {
  readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly onParentAbort = () => this.controller.abort(new RunCancelled());

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

/**
 * Everything one run needs, passed explicitly to every Harness call (never ambient).
 * Immutable; the budget's counters are the only state that changes during the run.
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
    private readonly lifetime: RunLifetime,
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
      lifetime,
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
      this.lifetime,
    );
  }

  remainingMs(now = Date.now()): number {
    return Math.max(0, this.deadline - now);
  }

  /** Throws RunCancelled or RunDeadlineExceeded once the run has been stopped. */
  throwIfStopped(): void {
    if (this.signal.aborted) throw this.signal.reason;
  }

  /** Releases the deadline timer; call once when the run has reached its terminal state. */
  close(): void {
    this.lifetime.close();
  }
}
