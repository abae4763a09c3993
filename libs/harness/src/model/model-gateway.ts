import { Inject, Injectable } from '@nestjs/common';
import type { BaseMessage } from '@langchain/core/messages';
import { AIMessage } from '@langchain/core/messages';
import type { BindToolsInput } from '@langchain/core/language_models/chat_models';
import { TimelinePhase } from '@app/trace';
import { harnessConfig, HarnessConfig } from '../config/harness.config';
import { llmConfig, LlmConfig } from '../config/llm.config';
import { failureCode } from '../retry/failure-classification';
import { BudgetAudit } from '../run/budget-audit';
import { BudgetExhausted, ModelCallFailed, RunDeadlineExceeded } from '../run/harness-errors';
import { RunContext } from '../run/run-context';
import { reasoningAuditOf, tokenUsageOf, UNAVAILABLE_AUDIT } from './model-audit';
import { PromptLibrary, PromptRole } from './prompt-library';
import { ProviderChatModel } from './provider-chat-model';
import { classifyProviderError } from './provider-errors';

/** Where each role's model steps appear in the run's timeline. */
const ROLE_PHASE: Record<PromptRole, TimelinePhase> = {
  'intent-router': 'ROUTING',
  'system-chat': 'AGENT',
  'knowledge-answer': 'AGENT',
  'diagnosis-agent': 'AGENT',
  'evidence-repair': 'EVIDENCE',
  'semantic-guard': 'SEMANTIC',
  'knowledge-guard': 'SEMANTIC',
};

export interface ModelRequest {
  role: PromptRole;
  /** Conversation after the role's system prompt, which the gateway adds. */
  messages: BaseMessage[];
  tools?: BindToolsInput[];
  /** Which attempt of a retried operation this is (recorded on the step). */
  attempt?: number;
  /** Lower than the configured per-call timeout for this call (e.g. SemanticGuard). */
  timeoutMs?: number;
}

function toolNamesOf(tools: BindToolsInput[] = []): string[] {
  return tools.flatMap((tool) => {
    const named = tool as { name?: unknown; function?: { name?: unknown } };
    const name = named.name ?? named.function?.name;
    return typeof name === 'string' ? [name] : [];
  });
}

/**
 * The one way to the LLM. Builds the single provider client (no SDK retries), and for every call checks
 * the run's budget and deadline, bounds the reply with `max_tokens` (the role's cap, lowered to what is
 * left of the run's output budget), passes the run's signal with a per-call timeout, records token
 * usage, and records the agent_step row and the restricted reasoning-audit row in the run's journal.
 */
@Injectable()
export class ModelGateway {
  private readonly model: ProviderChatModel;
  readonly prompts: PromptLibrary;

  constructor(
    @Inject(llmConfig.KEY) private readonly llm: LlmConfig,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
    private readonly budgetAudit: BudgetAudit,
  ) {
    this.model = new ProviderChatModel({
      model: llm.model,
      apiKey: llm.apiKey,
      configuration: { baseURL: llm.baseUrl },
      maxRetries: 0,
      streaming: false,
      temperature: llm.temperature,
      // The library sends `reasoning` only for model names it knows as OpenAI reasoning models; other
      // providers (DeepSeek) take `reasoning_effort` too, so it goes in as a plain body field.
      modelKwargs: {
        ...llm.extraBody,
        ...(llm.reasoningEffort ? { reasoning_effort: llm.reasoningEffort } : {}),
      },
    });
    this.prompts = new PromptLibrary(llm.promptsDir);
  }

  async invoke(ctx: RunContext, request: ModelRequest): Promise<AIMessage> {
    ctx.throwIfStopped();
    const stepIndex = this.reserve(ctx, request.role);
    const startedAt = new Date();
    // The run deadline arrives through ctx.signal; this timeout is the call's own.
    const timeout = AbortSignal.timeout(request.timeoutMs ?? this.config.agent.modelCallTimeoutMs);
    const runnable = request.tools?.length ? this.model.bindTools(request.tools) : this.model;
    const messages = [
      this.prompts.systemMessage(request.role, toolNamesOf(request.tools)),
      ...request.messages,
    ];
    const step = {
      stepIndex,
      role: request.role,
      attempt: request.attempt ?? 1,
      startedAt,
    };
    let message: AIMessage;
    try {
      message = await runnable.invoke(messages, {
        signal: AbortSignal.any([ctx.signal, timeout]),
        maxOutputTokens: this.maxTokensFor(ctx, request.role),
      });
    } catch (error) {
      const failure: Error = ctx.signal.aborted
        ? (ctx.signal.reason as Error)
        : ctx.remainingMs() === 0
          ? new RunDeadlineExceeded()
          : timeout.aborted
            ? new ModelCallFailed('TIMEOUT', 'MODEL_TIMEOUT')
            : classifyProviderError(error);
      ctx.journal.modelStep(
        {
          ...step,
          status: 'ERROR',
          errorCode: failureCode(failure),
          finishReason: null,
          toolCallCount: 0,
          inputTokens: 0,
          outputTokens: 0,
          totalTokens: 0,
          durationMs: Date.now() - startedAt.getTime(),
        },
        UNAVAILABLE_AUDIT,
      );
      ctx.journal.event(ROLE_PHASE[request.role], 'MODEL_STEP', {
        role: request.role,
        step_index: stepIndex,
        attempt: step.attempt,
        status: 'ERROR',
        error_code: failureCode(failure),
        duration_ms: Date.now() - startedAt.getTime(),
      });
      throw failure;
    }
    const usage = tokenUsageOf(message);
    ctx.budget.recordTokens(request.role, usage);
    const finishReason = message.response_metadata?.finish_reason;
    ctx.journal.modelStep(
      {
        ...step,
        status: 'OK',
        errorCode: null,
        finishReason: typeof finishReason === 'string' ? finishReason.slice(0, 32) : null,
        toolCallCount: message.tool_calls?.length ?? 0,
        ...usage,
        durationMs: Date.now() - startedAt.getTime(),
      },
      reasoningAuditOf(message),
    );
    ctx.journal.event(ROLE_PHASE[request.role], 'MODEL_STEP', {
      role: request.role,
      step_index: stepIndex,
      attempt: step.attempt,
      status: 'OK',
      tool_calls: (message.tool_calls?.length ?? 0) + (message.invalid_tool_calls?.length ?? 0),
      output_tokens: usage.outputTokens,
      duration_ms: Date.now() - startedAt.getTime(),
    });
    return message;
  }

  /** The role's per-call cap, never more than what is left of the role's own output-token budget. */
  private maxTokensFor(ctx: RunContext, role: PromptRole): number {
    return Math.max(1, Math.min(this.llm.maxTokens[role], ctx.budget.remainingOutputTokens(role)));
  }

  private reserve(ctx: RunContext, role: PromptRole): number {
    try {
      return ctx.budget.reserveModelCall(role);
    } catch (error) {
      if (error instanceof BudgetExhausted) this.budgetAudit.record(ctx, error);
      throw error;
    }
  }
}
