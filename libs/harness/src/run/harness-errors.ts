/** Which configured limit a run hit. Recorded on the run as budget_exhausted_reason. */
export const BUDGET_LIMITS = [
  'MODEL_CALLS',
  'TOOL_CALLS',
  'TOOL_CALLS_PER_TOOL',
  'INPUT_TOKENS',
  'OUTPUT_TOKENS',
  'TOTAL_TOKENS',
  'RUN_TIME',
] as const;
export type BudgetLimit = (typeof BUDGET_LIMITS)[number];

export class BudgetExhausted extends Error {
  constructor(readonly limit: BudgetLimit) {
    super(`run budget exhausted: ${limit}`);
    this.name = 'BudgetExhausted';
  }
}

/** The client went away (or the run was stopped): nothing more may be done or sent for this run. */
export class RunCancelled extends Error {
  constructor() {
    super('run cancelled');
    this.name = 'RunCancelled';
  }
}

/** The run's deadline passed; every model and tool call in flight is aborted. */
export class RunDeadlineExceeded extends Error {
  constructor() {
    super('run deadline exceeded');
    this.name = 'RunDeadlineExceeded';
  }
}

/** Why a run stopped from outside the call in flight; the gateway and the tool boundary share it. */
export type RunStop = 'CANCELLED' | 'DEADLINE_EXCEEDED';

/** The run-ending reason an error carries, or null when the error does not end the run. */
export function runStopOf(error: unknown): RunStop | null {
  if (error instanceof RunCancelled) return 'CANCELLED';
  if (error instanceof RunDeadlineExceeded) return 'DEADLINE_EXCEEDED';
  return null;
}

/** Failure classes the retry matrix reasons about (docs/architecture.md "Retry matrix"). */
export const FAILURE_KINDS = [
  'TIMEOUT',
  'TRANSPORT',
  'INVALID_OUTPUT',
  'NO_EVIDENCE',
  'CANCELLED',
  'DEADLINE_EXCEEDED',
  'BUDGET_EXHAUSTED',
  'BUSINESS_REJECTION',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** What the retry executor may know about a failed call beyond its kind. */
export interface RetryHint {
  /** False for a provider answer that another attempt cannot change (4xx other than 408/409/429). */
  transient?: boolean;
  /** The provider's Retry-After, in ms: the one retry waits this long, or is skipped if it does not fit. */
  retryAfterMs?: number;
}

/** A model call failed; `kind` is safe to record, the provider's message is not kept. */
export class ModelCallFailed extends Error {
  constructor(
    readonly kind: Extract<FailureKind, 'TIMEOUT' | 'TRANSPORT' | 'INVALID_OUTPUT'>,
    readonly code: string,
    readonly hint: RetryHint = {},
  ) {
    super(`model call failed: ${code}`);
    this.name = 'ModelCallFailed';
  }
}

/** A model answer that does not fit the role's contract (unparsable, outside an enum, wrong schema). */
export class InvalidModelOutput extends ModelCallFailed {
  constructor(code = 'INVALID_MODEL_OUTPUT') {
    super('INVALID_OUTPUT', code);
    this.name = 'InvalidModelOutput';
  }
}

export function isRunTerminating(
  error: unknown,
): error is RunCancelled | RunDeadlineExceeded | BudgetExhausted {
  return (
    error instanceof RunCancelled || error instanceof RunDeadlineExceeded || error instanceof BudgetExhausted
  );
}
