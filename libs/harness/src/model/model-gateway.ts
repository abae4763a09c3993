import { Inject, Injectable, Optional } from '@nestjs/common';
import type { BaseMessage } from '@langchain/core/messages';
import { AIMessage } from '@langchain/core/messages';
import type { BindToolsInput } from '@langchain/core/language_models/chat_models';
import type { ToolDefinition } from '@langchain/core/language_models/base';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { TimelinePhase } from '@app/trace';
import { harnessConfig, HarnessConfig } from '../config/harness.config';
import { llmConfig, LlmConfig } from '../config/llm.config';
import { failureCode } from '../retry/failure-classification';
import { BudgetAudit } from '../run/budget-audit';
import { BudgetExhausted, ModelCallFailed, RunDeadlineExceeded } from '../run/harness-errors';
import { RunContext } from '../run/run-context';
import { estimatedTokenUsage, reasoningAuditOf, tokenUsageOf, UNAVAILABLE_AUDIT } from './model-audit';
import { LlmProviderCheck } from './llm-provider-check';
import { PromptLibrary, PromptRole } from './prompt-library';
import { CHAT_PROVIDER, ChatProvider, generateOnce } from './provider-chat-model';
import {
  classifyProviderError,
  classifyProviderReply,
  PROVIDER_FAILURE_CLASSES,
  providerErrorDetails,
} from './provider-errors';

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

/**
 * Tools in the provider's wire format, converted once when an agent binds them: converting (zod to JSON
 * schema) and binding on every model call cost more CPU than the rest of the call's own work.
 */
export interface ModelToolSet {
  readonly names: readonly string[];
  readonly definitions: ToolDefinition[];
}

export interface ModelRequest {
  role: PromptRole;
  /** Conversation after the role's system prompt, which the gateway adds. */
  messages: BaseMessage[];
  tools?: ModelToolSet;
  /** Which attempt of a retried operation this is (recorded on the step). */
  attempt?: number;
  /** Lower than the configured per-call timeout for this call (e.g. SemanticGuard). */
  timeoutMs?: number;
}

/** Converts tools for `ModelRequest.tools`; do it once per agent, not per call. */
export function modelToolSet(tools: BindToolsInput[]): ModelToolSet {
  const definitions = tools.map((tool) => convertToOpenAITool(tool));
  return { names: definitions.map((definition) => definition.function.name), definitions };
}

/**
 * The one way to the LLM. Calls the single provider client (no SDK retries), and for every call checks
 * the run's budget and deadline, bounds the reply with `max_tokens` (the role's cap, lowered to what is
 * left of the run's output budget), passes the run's signal with a per-call timeout, records token
 * usage, and records the agent_step row and the restricted reasoning-audit row in the run's journal.
 */
@Injectable()
export class ModelGateway {
  readonly prompts: PromptLibrary;

  constructor(
    @Inject(llmConfig.KEY) private readonly llm: LlmConfig,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
    private readonly budgetAudit: BudgetAudit,
    @Inject(CHAT_PROVIDER) private readonly model: ChatProvider,
    @Optional() private readonly providerCheck?: LlmProviderCheck,
  ) {
    this.prompts = new PromptLibrary(llm.promptsDir);
  }

  invoke(ctx: RunContext, request: ModelRequest): Promise<AIMessage> {
    return ctx.track(this.call(ctx, request));
  }

  private async call(ctx: RunContext, request: ModelRequest): Promise<AIMessage> {
    await ctx.paced();
    this.throwIfKnownDown(ctx, request);
    const stepIndex = this.reserve(ctx, request.role);
    const startedAt = new Date();
    const messages = [this.prompts.systemMessage(request.role, request.tools?.names), ...request.messages];
    const step = {
      stepIndex,
      role: request.role,
      attempt: request.attempt ?? 1,
      startedAt,
    };
    // The run deadline arrives through ctx.signal; the timeout is the call's own. One controller carries
    // both and is released when the call ends (AbortSignal.timeout + AbortSignal.any left a timer and a
    // composite signal per call for the GC to clear).
    const call = new AbortController();
    const timer = setTimeout(() => call.abort(), request.timeoutMs ?? this.config.agent.modelCallTimeoutMs);
    timer.unref();
    const onStop = () => call.abort(ctx.signal.reason);
    if (ctx.signal.aborted) onStop();
    else ctx.signal.addEventListener('abort', onStop, { once: true });
    let message: AIMessage;
    try {
      message = await generateOnce(this.model, messages, {
        signal: call.signal,
        tools: request.tools?.definitions,
        maxOutputTokens: this.maxTokensFor(ctx, request.role),
      }).finally(() => {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onStop);
      });
      // A completion that is the provider's refusal (content filter, nothing written) is a failure too.
      const refusal = classifyProviderReply(message);
      if (refusal) throw refusal;
    } catch (error) {
      const failure: Error = ctx.signal.aborted
        ? (ctx.signal.reason as Error)
        : ctx.remainingMs() === 0
          ? new RunDeadlineExceeded()
          : call.signal.aborted
            ? new ModelCallFailed('TIMEOUT', 'MODEL_TIMEOUT')
            : error instanceof ModelCallFailed
              ? error
              : // The service's own error (e.g. building the request) stays its own: never the provider's.
                (classifyProviderError(error) ?? (error as Error));
      this.logFailure(ctx, request, failure, error);
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
    // The library fills usage_metadata even without `usage`, leaving the counts unset.
    const estimated = !message.usage_metadata?.total_tokens;
    const usage = estimated ? estimatedTokenUsage(messages, message) : tokenUsageOf(message);
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
      ...(estimated ? { tokens_estimated: true } : {}),
      duration_ms: Date.now() - startedAt.getTime(),
    });
    // The answer is recorded; what the run makes of it (the agent's next step) waits like a new call.
    await ctx.awaitPace();
    return message;
  }

  /**
   * One warn line per failed call, so a rejected key or an unknown model is visible without the trace:
   * the provider's status, error type/code and message (credentials redacted), never the prompt.
   */
  private logFailure(ctx: RunContext, request: ModelRequest, failure: Error, cause: unknown): void {
    const log = ctx.logger('ModelGateway');
    if (!(failure instanceof ModelCallFailed) && failure === cause) {
      // Not the provider's answer: the service failed around the call (its name only, never the payload).
      log.warn(
        `model call failed inside the service, not at the provider (${request.role}): ${failure.name}`,
        {
          role: request.role,
          attempt: request.attempt ?? 1,
          error_code: failureCode(failure),
          origin: 'service',
          error_name: failure.name,
        },
      );
      return;
    }
    const provider =
      failure instanceof ModelCallFailed && failure !== cause
        ? providerErrorDetails(cause, [this.llm.apiKey])
        : null;
    const fromReply = failure instanceof ModelCallFailed && failure === cause;
    const known =
      failure instanceof ModelCallFailed && failure.code in PROVIDER_FAILURE_CLASSES
        ? PROVIDER_FAILURE_CLASSES[failure.code as keyof typeof PROVIDER_FAILURE_CLASSES]
        : null;
    log.warn(`model call failed (${request.role}): ${failureCode(failure)}`, {
      role: request.role,
      attempt: request.attempt ?? 1,
      error_code: failureCode(failure),
      ...(known ? { transient: known.transient, remedy: known.remedy } : {}),
      http_status: fromReply ? 200 : (provider?.status ?? null),
      provider_error_type: provider?.type ?? null,
      provider_error_code: provider?.code ?? null,
      provider_message: provider?.message ?? null,
      ...(provider?.network_code ? { network_code: provider.network_code } : {}),
      ...(fromReply ? { finish_reason: 'content_filter' } : {}),
    });
  }

  /**
   * While the provider check knows the provider is down (a failure less than 30 s old), a call fails at
   * once under that cause, never retried: no user waits on a provider that is known not to answer.
   */
  private throwIfKnownDown(ctx: RunContext, request: ModelRequest): void {
    const down = this.providerCheck?.knownFailure();
    if (!down?.code) return;
    ctx.logger('ModelGateway').warn(`model call not made: the provider is known to be down (${down.code})`, {
      role: request.role,
      error_code: down.code,
      http_status: down.httpStatus,
      provider_check: down.message,
    });
    throw new ModelCallFailed(down.code === 'MODEL_TIMEOUT' ? 'TIMEOUT' : 'TRANSPORT', down.code, {
      transient: false,
    });
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
