import { BudgetExhausted, BudgetLimit } from './harness-errors';
import { BudgetLimits, RunBudget } from './run-budget';

const LIMITS: BudgetLimits = {
  maxModelCalls: 2,
  maxToolCalls: 3,
  maxCallsPerTool: 2,
  maxInputTokens: 100,
  maxOutputTokens: 50,
  maxTotalTokens: 120,
  maxElapsedMs: 1000,
};

function limitOf(action: () => unknown): BudgetLimit | null {
  try {
    action();
    return null;
  } catch (error) {
    if (error instanceof BudgetExhausted) return error.limit;
    throw error;
  }
}

describe('RunBudget', () => {
  it('reports the output tokens still allowed, never below zero', () => {
    const budget = new RunBudget(LIMITS);
    expect(budget.remainingOutputTokens()).toBe(50);
    budget.recordTokens({ inputTokens: 5, outputTokens: 30, totalTokens: 35 });
    expect(budget.remainingOutputTokens()).toBe(20);
    budget.recordTokens({ inputTokens: 5, outputTokens: 40, totalTokens: 45 });
    expect(budget.remainingOutputTokens()).toBe(0);
  });

  it('numbers model calls from 1 and stops after the limit', () => {
    const budget = new RunBudget(LIMITS);
    expect([budget.reserveModelCall(), budget.reserveModelCall()]).toEqual([1, 2]);
    expect(limitOf(() => budget.reserveModelCall())).toBe('MODEL_CALLS');
    expect(budget.exhausted).toBe('MODEL_CALLS');
  });

  it.each<[string, (budget: RunBudget) => void, BudgetLimit]>([
    ['total tool calls', (b) => ['a', 'b', 'c', 'c'].forEach((t) => b.reserveToolCall(t)), 'TOOL_CALLS'],
    ['calls of one tool', (b) => ['a', 'a', 'a'].forEach((t) => b.reserveToolCall(t)), 'TOOL_CALLS_PER_TOOL'],
    [
      'input tokens',
      (b) => (b.recordTokens({ inputTokens: 100, outputTokens: 0, totalTokens: 100 }), b.reserveModelCall()),
      'INPUT_TOKENS',
    ],
    [
      'output tokens',
      (b) => (b.recordTokens({ inputTokens: 0, outputTokens: 60, totalTokens: 60 }), b.reserveModelCall()),
      'OUTPUT_TOKENS',
    ],
    [
      'total tokens',
      (b) => (b.recordTokens({ inputTokens: 90, outputTokens: 40, totalTokens: 130 }), b.reserveModelCall()),
      'TOTAL_TOKENS',
    ],
  ])('raises BudgetExhausted naming %s', (_name, spend, limit) => {
    expect(limitOf(() => spend(new RunBudget(LIMITS)))).toBe(limit);
  });

  it('stops model and tool reservations once the run time is used up', () => {
    let now = 0;
    const budget = new RunBudget(LIMITS, 0, () => now);
    budget.reserveModelCall();
    now = 1000;
    expect(limitOf(() => budget.reserveToolCall('a'))).toBe('RUN_TIME');
    expect(limitOf(() => budget.reserveModelCall())).toBe('RUN_TIME');
  });

  it('keeps the first limit hit and reports totals', () => {
    const budget = new RunBudget(LIMITS, 0, () => 10);
    budget.reserveModelCall();
    budget.reserveToolCall('query_logs');
    budget.recordTokens({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    budget.reserveToolCall('query_logs');
    limitOf(() => budget.reserveToolCall('query_logs'));
    limitOf(() => ['x', 'y'].forEach((t) => budget.reserveToolCall(t)));
    expect(budget.totals()).toEqual({
      modelCalls: 1,
      toolCalls: 3,
      toolCallsByTool: { query_logs: 2, x: 1 },
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      elapsedMs: 10,
      exhausted: 'TOOL_CALLS_PER_TOOL',
    });
  });
});
