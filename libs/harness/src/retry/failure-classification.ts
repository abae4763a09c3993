import { BudgetExhausted, FailureKind, ModelCallFailed, runStopOf } from '../run/harness-errors';

/** The retry-relevant class of an error, or null when the Harness does not know it (never retried). */
export function classifyFailure(error: unknown): FailureKind | null {
  const stop = runStopOf(error);
  if (stop) return stop;
  if (error instanceof BudgetExhausted) return 'BUDGET_EXHAUSTED';
  if (error instanceof ModelCallFailed) return error.kind;
  return null;
}

/** A safe, stable code for an error, for timelines and step rows (never the provider's message). */
export function failureCode(error: unknown): string {
  if (error instanceof ModelCallFailed) return error.code;
  if (error instanceof BudgetExhausted) return `BUDGET_${error.limit}`;
  const kind = classifyFailure(error);
  return kind ?? 'INTERNAL_ERROR';
}
