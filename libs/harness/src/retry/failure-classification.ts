import {
  BUDGET_LIMITS,
  BudgetCode,
  BudgetExhausted,
  BudgetLimit,
  FAILURE_KINDS,
  FailureKind,
  INVALID_OUTPUT_CODES,
  ModelCallCode,
  ModelCallFailed,
  PROVIDER_FAILURE_CODES,
  RetryExhausted,
  RunCancelled,
  RunDeadlineExceeded,
  RunStop,
} from '../run/harness-errors';
import type { RetryOperation } from './harness-retry-policies';

/**
 * The one error → outcome table (docs/architecture.md "Retry matrix"): every error the Harness knows,
 * its retry class (`kind`, null = never retried) and the safe, stable code it is recorded under.
 * The retry executor, the gateway, the tool boundary, the guards and the chat's failure codes all read
 * their answer from here; a caller that switches on `source` must handle every entry.
 */
export type ErrorOutcome =
  | { source: 'RUN_STOP'; kind: RunStop; code: RunStop }
  | { source: 'BUDGET'; kind: 'BUDGET_EXHAUSTED'; code: BudgetCode; limit: BudgetLimit }
  | { source: 'MODEL_CALL'; kind: ModelCallFailed['kind']; code: ModelCallCode }
  | {
      source: 'RETRY_EXHAUSTED';
      kind: null;
      code: FailureKind;
      operation: RetryOperation;
      /** The last attempt's own code (MODEL_RATE_LIMITED, INTENT_OUT_OF_ENUM, ...), null when unknown. */
      lastCode: ModelCallCode | null;
    }
  | { source: 'UNKNOWN'; kind: null; code: 'INTERNAL_ERROR' };

/** Every code a failed step, attempt or run may be recorded under; closed, so a new one needs a mapping. */
export type HarnessFailureCode = ErrorOutcome['code'];

const RUN_STOPS = ['CANCELLED', 'DEADLINE_EXCEEDED'] as const satisfies readonly RunStop[];
const ALL_FAILURE_CODES = [
  ...RUN_STOPS,
  ...BUDGET_LIMITS.map((limit): BudgetCode => `BUDGET_${limit}`),
  ...PROVIDER_FAILURE_CODES,
  ...INVALID_OUTPUT_CODES,
  ...FAILURE_KINDS,
  'INTERNAL_ERROR',
] as const;
/** A code HarnessFailureCode gains without a place in the list above does not compile. */
const _everyFailureCodeListed: [Exclude<HarnessFailureCode, (typeof ALL_FAILURE_CODES)[number]>] extends [
  never,
]
  ? true
  : never = true;

/** Every HarnessFailureCode, once each: the closed set a failed model step is counted under. */
export const HARNESS_FAILURE_CODES: readonly HarnessFailureCode[] = [...new Set(ALL_FAILURE_CODES)];

export function errorOutcome(error: unknown): ErrorOutcome {
  if (error instanceof RunCancelled) return { source: 'RUN_STOP', kind: 'CANCELLED', code: 'CANCELLED' };
  if (error instanceof RunDeadlineExceeded)
    return { source: 'RUN_STOP', kind: 'DEADLINE_EXCEEDED', code: 'DEADLINE_EXCEEDED' };
  if (error instanceof BudgetExhausted)
    return { source: 'BUDGET', kind: 'BUDGET_EXHAUSTED', code: `BUDGET_${error.limit}`, limit: error.limit };
  if (error instanceof ModelCallFailed) return { source: 'MODEL_CALL', kind: error.kind, code: error.code };
  if (error instanceof RetryExhausted)
    return {
      source: 'RETRY_EXHAUSTED',
      kind: null,
      code: error.lastFailure,
      operation: error.operation,
      lastCode: error.lastError instanceof ModelCallFailed ? error.lastError.code : null,
    };
  return { source: 'UNKNOWN', kind: null, code: 'INTERNAL_ERROR' };
}

/** The retry-relevant class of an error, or null when the Harness does not know it (never retried). */
export function classifyFailure(error: unknown): FailureKind | null {
  return errorOutcome(error).kind;
}

/** A safe, stable code for an error, for timelines and step rows (never the provider's message). */
export function failureCode(error: unknown): HarnessFailureCode {
  return errorOutcome(error).code;
}

/** The run-ending reason an error carries, or null when the error does not end the run. */
export function runStopOf(error: unknown): RunStop | null {
  const outcome = errorOutcome(error);
  return outcome.source === 'RUN_STOP' ? outcome.code : null;
}
