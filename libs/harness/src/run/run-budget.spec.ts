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
  roles: {
    'semantic-guard': { maxModelCalls: 2, maxInputTokens: 500, maxOutputTokens: 40, maxTotalTokens: 500 },
  },
};
const AGENT = 'diagnosis-agent';

function limitOf(action: () => unknown): BudgetLimit | null {
  try {
    action();
    return null;
  } catch (error) {
    if (error instanceof BudgetExhausted) return error.limit;
    throw error;
  }
}

const usage = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
});

describe('RunBudget', () => {
  it('numbers model calls from 1 and stops after the limit', () => {
    const budget = new RunBudget(LIMITS);
    expect([budget.reserveModelCall(AGENT), budget.reserveModelCall(AGENT)]).toEqual([1, 2]);
    expect(limitOf(() => budget.reserveModelCall(AGENT))).toBe('MODEL_CALLS');
    expect(budget.exhausted).toBe('MODEL_CALLS');
  });

  it.each<[string, (budget: RunBudget) => void, BudgetLimit]>([
    ['total tool calls', (b) => ['a', 'b', 'c', 'c'].forEach((t) => b.reserveToolCall(t)), 'TOOL_CALLS'],
    ['calls of one tool', (b) => ['a', 'a', 'a'].forEach((t) => b.reserveToolCall(t)), 'TOOL_CALLS_PER_TOOL'],
    [
      'rejected tool calls',
      (b) => (
        b.countRejectedToolCall(),
        b.countRejectedToolCall(),
        b.countRejectedToolCall(),
        b.reserveToolCall('a')
      ),
      'TOOL_CALLS',
    ],
    [
      'input tokens',
      (b) => (b.recordTokens(AGENT, usage(100, 0)), b.reserveModelCall(AGENT)),
      'INPUT_TOKENS',
    ],
    [
      'output tokens',
      (b) => (b.recordTokens(AGENT, usage(0, 60)), b.reserveModelCall(AGENT)),
      'OUTPUT_TOKENS',
    ],
    [
      'total tokens',
      (b) => (b.recordTokens(AGENT, usage(90, 40)), b.reserveModelCall(AGENT)),
      'TOTAL_TOKENS',
    ],
  ])('raises BudgetExhausted naming %s', (_name, spend, limit) => {
    expect(limitOf(() => spend(new RunBudget(LIMITS)))).toBe(limit);
  });

  it('gives each role its own pool: an agent that spent everything leaves SemanticGuard its calls', () => {
    const budget = new RunBudget(LIMITS);
    budget.reserveModelCall(AGENT);
    budget.reserveModelCall(AGENT);
    budget.recordTokens(AGENT, usage(100, 50));
    expect(limitOf(() => budget.reserveModelCall(AGENT))).toBe('INPUT_TOKENS');
    expect(budget.reserveModelCall('semantic-guard')).toBe(3);
    budget.recordTokens('semantic-guard', usage(10, 10));
    expect(budget.reserveModelCall('semantic-guard')).toBe(4);
    expect(limitOf(() => budget.reserveModelCall('semantic-guard'))).toBe('MODEL_CALLS');
  });

  it('a role without its own entry gets a fresh pool of the agent size', () => {
    const budget = new RunBudget(LIMITS);
    budget.reserveModelCall(AGENT);
    budget.reserveModelCall(AGENT);
    expect(budget.reserveModelCall('intent-router')).toBe(3);
  });

  it('tells how many output tokens a role may still spend, never below zero', () => {
    const budget = new RunBudget(LIMITS);
    expect(budget.remainingOutputTokens(AGENT)).toBe(50);
    budget.recordTokens(AGENT, usage(0, 20));
    expect(budget.remainingOutputTokens(AGENT)).toBe(30);
    budget.recordTokens(AGENT, usage(95, 0));
    expect(budget.remainingOutputTokens(AGENT)).toBe(5);
    budget.recordTokens(AGENT, usage(0, 100));
    expect(budget.remainingOutputTokens(AGENT)).toBe(0);
    expect(budget.remainingOutputTokens('semantic-guard')).toBe(40);
  });

  it('stops model and tool reservations once the run time is used up', () => {
    let now = 0;
    const budget = new RunBudget(LIMITS, 0, () => now);
    budget.reserveModelCall(AGENT);
    now = 1000;
    expect(limitOf(() => budget.reserveToolCall('a'))).toBe('RUN_TIME');
    expect(limitOf(() => budget.reserveModelCall(AGENT))).toBe('RUN_TIME');
  });

  it('keeps the first limit hit and reports run totals over all roles', () => {
    const budget = new RunBudget(LIMITS, 0, () => 10);
    budget.reserveModelCall(AGENT);
    budget.reserveModelCall('semantic-guard');
    budget.reserveToolCall('query_logs');
    budget.recordTokens(AGENT, usage(10, 5));
    budget.recordTokens('semantic-guard', usage(3, 2));
    budget.reserveToolCall('query_logs');
    limitOf(() => budget.reserveToolCall('query_logs'));
    limitOf(() => ['x', 'y'].forEach((t) => budget.reserveToolCall(t)));
    expect(budget.totals()).toEqual({
      modelCalls: 2,
      toolCalls: 3,
      toolCallsByTool: { query_logs: 2, x: 1 },
      inputTokens: 13,
      outputTokens: 7,
      totalTokens: 20,
      elapsedMs: 10,
      exhausted: 'TOOL_CALLS_PER_TOOL',
    });
  });
});
