import {
  BudgetExhausted,
  InvalidModelOutput,
  ModelCallFailed,
  RetryExhausted,
  RunCancelled,
  RunDeadlineExceeded,
} from '../run/harness-errors';
import {
  classifyFailure,
  errorOutcome,
  failureCode,
  HARNESS_FAILURE_CODES,
  runStopOf,
} from './failure-classification';

describe('the error → outcome table', () => {
  it.each([
    {
      error: new RunCancelled(),
      source: 'RUN_STOP',
      kind: 'CANCELLED',
      code: 'CANCELLED',
      stop: 'CANCELLED',
    },
    {
      error: new RunDeadlineExceeded(),
      source: 'RUN_STOP',
      kind: 'DEADLINE_EXCEEDED',
      code: 'DEADLINE_EXCEEDED',
      stop: 'DEADLINE_EXCEEDED',
    },
    {
      error: new BudgetExhausted('TOOL_CALLS_PER_TOOL'),
      source: 'BUDGET',
      kind: 'BUDGET_EXHAUSTED',
      code: 'BUDGET_TOOL_CALLS_PER_TOOL',
      stop: null,
    },
    {
      error: new ModelCallFailed('TRANSPORT', 'MODEL_AUTH_FAILED'),
      source: 'MODEL_CALL',
      kind: 'TRANSPORT',
      code: 'MODEL_AUTH_FAILED',
      stop: null,
    },
    {
      error: new ModelCallFailed('TIMEOUT', 'MODEL_TIMEOUT'),
      source: 'MODEL_CALL',
      kind: 'TIMEOUT',
      code: 'MODEL_TIMEOUT',
      stop: null,
    },
    {
      error: new InvalidModelOutput('INTENT_OUT_OF_ENUM'),
      source: 'MODEL_CALL',
      kind: 'INVALID_OUTPUT',
      code: 'INTENT_OUT_OF_ENUM',
      stop: null,
    },
    {
      error: new RetryExhausted('semantic_guard', 2, 'INVALID_OUTPUT', null),
      source: 'RETRY_EXHAUSTED',
      kind: null,
      code: 'INVALID_OUTPUT',
      stop: null,
    },
    { error: new TypeError('x'), source: 'UNKNOWN', kind: null, code: 'INTERNAL_ERROR', stop: null },
    { error: 'a string', source: 'UNKNOWN', kind: null, code: 'INTERNAL_ERROR', stop: null },
  ])('$error.name → $source / $code', ({ error, source, kind, code, stop }) => {
    expect(errorOutcome(error)).toMatchObject({ source, kind, code });
    expect(classifyFailure(error)).toBe(kind);
    expect(failureCode(error)).toBe(code);
    expect(runStopOf(error)).toBe(stop);
  });

  it('a retried-out operation is never retried again and names its operation', () => {
    const outcome = errorOutcome(new RetryExhausted('intent_router', 2, 'TRANSPORT', null));
    expect(outcome).toEqual({
      source: 'RETRY_EXHAUSTED',
      kind: null,
      code: 'TRANSPORT',
      operation: 'intent_router',
      lastCode: null,
    });
  });
});

describe('HARNESS_FAILURE_CODES', () => {
  it('lists each code once, the budget codes of every limit and the provider classes included', () => {
    expect(new Set(HARNESS_FAILURE_CODES).size).toBe(HARNESS_FAILURE_CODES.length);
    for (const code of [
      'CANCELLED',
      'BUDGET_MODEL_CALLS',
      'BUDGET_RUN_TIME',
      'MODEL_AUTH_FAILED',
      'INTENT_OUT_OF_ENUM',
      'INTERNAL_ERROR',
    ])
      expect(HARNESS_FAILURE_CODES).toContain(code);
  });

  it.each([
    new RunCancelled(),
    new RunDeadlineExceeded(),
    new BudgetExhausted('TOOL_CALLS_PER_TOOL'),
    new ModelCallFailed('TRANSPORT', 'MODEL_QUOTA_EXHAUSTED'),
    new InvalidModelOutput('SEMANTIC_INVALID'),
    new Error('anything else'),
  ])('holds the code every error is recorded under (%s)', (error) => {
    expect(HARNESS_FAILURE_CODES).toContain(failureCode(error));
  });
});
