import type { PromptRole } from '../model/prompt-library';
import { BudgetExhausted, BudgetLimit } from './harness-errors';

/** What one LLM role may spend in a run: its own calls and tokens, never another role's. */
export interface RoleLimits {
  maxModelCalls: number;
  maxInputTokens: number;
  maxOutputTokens: number;
  maxTotalTokens: number;
}

/**
 * The run's limits. The top-level model/token limits are the Diagnosis Agent loop's; every other role
 * draws from its own entry in `roles` (a role without one gets a pool of the agent's size), so an agent
 * that spends its budget leaves the router, the knowledge answer, the repair and SemanticGuard theirs.
 */
export interface BudgetLimits extends RoleLimits {
  maxToolCalls: number;
  maxCallsPerTool: number;
  maxElapsedMs: number;
  roles?: Partial<Record<PromptRole, RoleLimits>>;
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

interface RoleSpend extends TokenUsage {
  modelCalls: number;
}

const ZERO: RoleSpend = { modelCalls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/**
 * The only mutable part of a RunContext: counters checked against the configured limits, kept per role
 * for model calls and tokens and per run for tool calls and time. A reservation that would pass a limit
 * throws BudgetExhausted naming it; the first limit hit is kept.
 */
export class RunBudget {
  private modelCalls = 0;
  private toolCalls = 0;
  private readonly toolCallsByTool = new Map<string, number>();
  private readonly spend = new Map<PromptRole, RoleSpend>();
  private exhaustedLimit: BudgetLimit | null = null;

  constructor(
    readonly limits: BudgetLimits,
    private readonly startedAt: number = Date.now(),
    private readonly now: () => number = Date.now,
  ) {}

  /** The limits `role` draws from. */
  limitsOf(role: PromptRole): RoleLimits {
    return (role === 'diagnosis-agent' ? undefined : this.limits.roles?.[role]) ?? this.limits;
  }

  /** Reserves one model call of `role` and returns its 1-based step index within the run. */
  reserveModelCall(role: PromptRole): number {
    this.checkTime();
    const limits = this.limitsOf(role);
    const spent = this.spentBy(role);
    if (spent.inputTokens >= limits.maxInputTokens) this.exhaust('INPUT_TOKENS');
    if (spent.outputTokens >= limits.maxOutputTokens) this.exhaust('OUTPUT_TOKENS');
    if (spent.totalTokens >= limits.maxTotalTokens) this.exhaust('TOTAL_TOKENS');
    if (spent.modelCalls >= limits.maxModelCalls) this.exhaust('MODEL_CALLS');
    this.spend.set(role, { ...spent, modelCalls: spent.modelCalls + 1 });
    this.modelCalls += 1;
    return this.modelCalls;
  }

  /**
   * Output tokens `role` may still spend in this run (never below 0): the bound for a call's
   * `max_tokens` together with the role's per-call cap.
   */
  remainingOutputTokens(role: PromptRole): number {
    const limits = this.limitsOf(role);
    const spent = this.spentBy(role);
    return Math.max(
      0,
      Math.min(limits.maxOutputTokens - spent.outputTokens, limits.maxTotalTokens - spent.totalTokens),
    );
  }

  reserveToolCall(toolName: string): void {
    this.checkTime();
    if (this.toolCalls >= this.limits.maxToolCalls) this.exhaust('TOOL_CALLS');
    const perTool = this.toolCallsByTool.get(toolName) ?? 0;
    if (perTool >= this.limits.maxCallsPerTool) this.exhaust('TOOL_CALLS_PER_TOOL');
    this.toolCalls += 1;
    this.toolCallsByTool.set(toolName, perTool + 1);
  }

  /**
   * A tool call the boundary refused before running anything (bad id, duplicate id, bad or malformed
   * arguments, unknown tool) still costs one call of the run's tool budget, so a model that keeps
   * sending bad calls runs out like one that keeps sending good ones. Never throws: the refusal is the answer.
   */
  countRejectedToolCall(): void {
    this.toolCalls += 1;
  }

  /** Tokens are known only after a call: they are always recorded, and an overrun stops the role's next call. */
  recordTokens(role: PromptRole, usage: TokenUsage): void {
    const spent = this.spentBy(role);
    this.spend.set(role, {
      modelCalls: spent.modelCalls,
      inputTokens: spent.inputTokens + usage.inputTokens,
      outputTokens: spent.outputTokens + usage.outputTokens,
      totalTokens: spent.totalTokens + usage.totalTokens,
    });
  }

  get exhausted(): BudgetLimit | null {
    return this.exhaustedLimit;
  }

  totals(): BudgetTotals {
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    for (const spent of this.spend.values()) {
      usage.inputTokens += spent.inputTokens;
      usage.outputTokens += spent.outputTokens;
      usage.totalTokens += spent.totalTokens;
    }
    return {
      modelCalls: this.modelCalls,
      toolCalls: this.toolCalls,
      toolCallsByTool: Object.fromEntries(this.toolCallsByTool),
      ...usage,
      elapsedMs: this.now() - this.startedAt,
      exhausted: this.exhaustedLimit,
    };
  }

  private spentBy(role: PromptRole): RoleSpend {
    return this.spend.get(role) ?? ZERO;
  }

  private checkTime(): void {
    if (this.now() - this.startedAt >= this.limits.maxElapsedMs) this.exhaust('RUN_TIME');
  }

  private exhaust(limit: BudgetLimit): never {
    this.exhaustedLimit ??= limit;
    throw new BudgetExhausted(limit);
  }
}
