import type { CancelCause } from '@app/contracts';
import type { RetryOperation } from '../retry/harness-retry-policies';

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
/** The code a hit limit is recorded under (steps, timelines, the run's error_code). */
export type BudgetCode = `BUDGET_${BudgetLimit}`;

export class BudgetExhausted extends Error {
  constructor(readonly limit: BudgetLimit) {
    super(`run budget exhausted: ${limit}`);
    this.name = 'BudgetExhausted';
  }
}

/** The client went away (or the run was stopped): nothing more may be done or sent for this run. */
export class RunCancelled extends Error {
  /** Who cancelled: the client (the default: a parent signal aborted without a cause is a client leaving) or a stopping service. */
  constructor(readonly by: CancelCause = 'CLIENT_DISCONNECTED') {
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
  /** False for a provider answer that another attempt cannot change (provider-errors.ts decides). */
  transient?: boolean;
  /** The provider's Retry-After, in ms: the one retry waits this long, or is skipped if it does not fit. */
  retryAfterMs?: number;
}

/**
 * How a model call failed on the provider's side, one code per class (provider-errors.ts classifies;
 * docs/provider-failures.md lists what each means and who can act). The first four are transient;
 * every other one is final: another attempt cannot change it.
 */
export const PROVIDER_FAILURE_CODES = [
  'MODEL_TIMEOUT',
  'MODEL_RATE_LIMITED',
  'MODEL_UNAVAILABLE',
  'MODEL_UNREACHABLE',
  'MODEL_AUTH_FAILED',
  'MODEL_QUOTA_EXHAUSTED',
  'MODEL_NOT_FOUND',
  'MODEL_ENDPOINT_INVALID',
  'MODEL_TLS_FAILED',
  'MODEL_CONTENT_FILTERED',
  'MODEL_CONTEXT_TOO_LONG',
  'MODEL_REQUEST_REJECTED',
  'MODEL_BAD_RESPONSE',
] as const;
export type ModelTransportCode = (typeof PROVIDER_FAILURE_CODES)[number];

/** Why a model answer did not fit its role's contract; each role that checks its answer names its own. */
export const INVALID_OUTPUT_CODES = [
  'INVALID_MODEL_OUTPUT',
  'INTENT_OUT_OF_ENUM',
  'SEMANTIC_UNPARSABLE',
  'SEMANTIC_INVALID',
  'SEMANTIC_TOTAL_TIMEOUT',
  'KNOWLEDGE_REVIEW_TOTAL_TIMEOUT',
] as const;
export type InvalidOutputCode = (typeof INVALID_OUTPUT_CODES)[number];

export type ModelCallCode = ModelTransportCode | InvalidOutputCode;

/** A model call failed; `kind` is safe to record, the provider's message is not kept. */
export class ModelCallFailed extends Error {
  constructor(
    readonly kind: Extract<FailureKind, 'TIMEOUT' | 'TRANSPORT' | 'INVALID_OUTPUT'>,
    readonly code: ModelCallCode,
    readonly hint: RetryHint = {},
  ) {
    super(`model call failed: ${code}`);
    this.name = 'ModelCallFailed';
  }
}

/** A model answer that does not fit the role's contract (unparsable, outside an enum, wrong schema). */
export class InvalidModelOutput extends ModelCallFailed {
  constructor(code: InvalidOutputCode = 'INVALID_MODEL_OUTPUT') {
    super('INVALID_OUTPUT', code);
    this.name = 'InvalidModelOutput';
  }
}

/** All attempts failed; `lastFailure` says how the last one did. */
export class RetryExhausted extends Error {
  constructor(
    readonly operation: RetryOperation,
    readonly attempts: number,
    readonly lastFailure: FailureKind,
    readonly lastError: unknown,
  ) {
    super(`${operation} failed after ${attempts} attempt(s): ${lastFailure}`);
    this.name = 'RetryExhausted';
  }
}
