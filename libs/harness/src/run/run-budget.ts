import { BudgetExhausted, BudgetLimit } from './harness-errors';

export interface BudgetLimits {
  maxModelCalls: number;
  maxToolCalls: number;
  maxCallsPerTool: number;
  maxInputTokens: number;
  maxOutputTokens: number;
  maxTotalTokens: number;
  maxElapsedMs: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface BudgetTotals extends TokenUsage {
  modelCalls: number;
  toolCalls: number;
  toolCallsByTool: Record<string, number>;
  elapsedMs: number;
  exhausted: BudgetLimit | null;
}

/**
 * The only mutable part of a RunContext: counters checked against the configured limits.
 * A reservation that would pass a limit throws BudgetExhausted naming it; the first limit hit is kept.
 */
export class RunBudget {
  private modelCalls = 0;
  private toolCalls = 0;
  private readonly toolCallsByTool = new Map<string, number>();
  private usage: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  private exhaustedLimit: BudgetLimit | null = null;

  constructor(
    readonly limits: BudgetLimits,
    private readonly startedAt: number = Date.now(),
    private readonly now: () => number = Date.now,
  ) {}

  /** Reserves one model call and returns its 1-based step index within the run. */
  reserveModelCall(): number {
    this.checkTime();
    this.checkTokens();
    if (this.modelCalls >= this.limits.maxModelCalls) this.exhaust('MODEL_CALLS');
    this.modelCalls += 1;
    return this.modelCalls;
  }

  reserveToolCall(toolName: string): void {
    this.checkTime();
    if (this.toolCalls >= this.limits.maxToolCalls) this.exhaust('TOOL_CALLS');
    const perTool = this.toolCallsByTool.get(toolName) ?? 0;
    if (perTool >= this.limits.maxCallsPerTool) this.exhaust('TOOL_CALLS_PER_TOOL');
    this.toolCalls += 1;
    this.toolCallsByTool.set(toolName, perTool + 1);
  }

  /** Tokens are known only after a call: they are always recorded, and an overrun stops the next call. */
  recordTokens(usage: TokenUsage): void {
    this.usage = {
      inputTokens: this.usage.inputTokens + usage.inputTokens,
      outputTokens: this.usage.outputTokens + usage.outputTokens,
      totalTokens: this.usage.totalTokens + usage.totalTokens,
    };
  }

  /** Output tokens still allowed; the bound of the next call's max_tokens. */
  remainingOutputTokens(): number {
    return Math.max(0, this.limits.maxOutputTokens - this.usage.outputTokens);
  }

  get exhausted(): BudgetLimit | null {
    return this.exhaustedLimit;
  }

  totals(): BudgetTotals {
    return {
      modelCalls: this.modelCalls,
      toolCalls: this.toolCalls,
      toolCallsByTool: Object.fromEntries(this.toolCallsByTool),
      ...this.usage,
      elapsedMs: this.now() - this.startedAt,
      exhausted: this.exhaustedLimit,
    };
  }

  private checkTime(): void {
    if (this.now() - this.startedAt >= this.limits.maxElapsedMs) this.exhaust('RUN_TIME');
  }

  private checkTokens(): void {
    if (this.usage.inputTokens >= this.limits.maxInputTokens) this.exhaust('INPUT_TOKENS');
    if (this.usage.outputTokens >= this.limits.maxOutputTokens) this.exhaust('OUTPUT_TOKENS');
    if (this.usage.totalTokens >= this.limits.maxTotalTokens) this.exhaust('TOTAL_TOKENS');
  }

  private exhaust(limit: BudgetLimit): never {
    this.exhaustedLimit ??= limit;
    throw new BudgetExhausted(limit);
  }
}
