import { BaseChatModel, BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AIMessage, BaseMessage, isAIMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { RunContext } from '../run/run-context';
import { runUniqueToolCallIds } from '../tools/tool-call-id';
import { textOf } from './model-audit';
import { ModelGateway, ModelToolSet, modelToolSet } from './model-gateway';
import { withToolCallHabits } from './tool-call-habits';
import { PromptRole } from './prompt-library';

/**
 * A ChatModel bound to one run and one role, for LangGraph's prebuilt agent: every call the framework
 * makes goes through the ModelGateway (budget, deadline, signal, audit). The role's system prompt is
 * added by the gateway, so the agent itself is created without a prompt.
 */
export class GatewayChatModel extends BaseChatModel {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly ctx: RunContext,
    private readonly role: PromptRole,
    private readonly tools?: ModelToolSet,
  ) {
    super({});
  }

  _llmType(): string {
    return 'harness-gateway';
  }

  override bindTools(tools: BindToolsInput[]): GatewayChatModel {
    // Converted here, once per agent; every model call of the run reuses the wire-format definitions.
    return new GatewayChatModel(this.gateway, this.ctx, this.role, modelToolSet(tools));
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const reply = await this.gateway.invoke(this.ctx, { role: this.role, messages, tools: this.tools });
    const message = this.withRunUniqueIds(messages, this.withHabitsHandled(messages, reply));
    return { generations: [{ message, text: textOf(message.content) }] };
  }

  /**
   * Tool calls as the provider's habits send them (tool-call-habits.ts): text in the content, a prefixed
   * or re-cased name, no id. What was changed is a timeline event and, for calls written as text that
   * cannot be read, a warn line (the reply then stays text and ends the loop as an unreadable draft).
   */
  private withHabitsHandled(history: BaseMessage[], reply: AIMessage): AIMessage {
    if (!this.tools) return reply;
    const turn = history.filter((message) => isAIMessage(message)).length;
    const { message, notes } = withToolCallHabits(
      withMalformedCallsAsToolCalls(reply),
      this.tools.names,
      (index) => `call_auto_${turn}_${index}`,
    );
    if (notes.textFormat === null && notes.renamed.length === 0 && notes.assignedIds === 0) return message;
    this.ctx.journal.event('TOOL', 'TOOL_CALL_NORMALISED', {
      ...(notes.textFormat ? { text_format: notes.textFormat, text_unreadable: notes.textUnreadable } : {}),
      renamed: notes.renamed.length,
      assigned_ids: notes.assignedIds,
    });
    if (notes.textUnreadable)
      this.ctx.logger('GatewayChatModel').warn('tool calls written as text could not be read', {
        error_code: 'TOOL_CALL_TEXT_UNREADABLE',
        text_format: notes.textFormat,
      });
    return message;
  }

  /**
   * Gives a reused tool_call_id its run-unique form before the reply enters the history, so the model
   * sees, and cites, the id its result is stored under; the timeline keeps the id the provider sent.
   */
  private withRunUniqueIds(history: BaseMessage[], message: AIMessage): AIMessage {
    const used = history.flatMap((earlier) =>
      isAIMessage(earlier) ? (earlier.tool_calls ?? []).flatMap((call) => call.id ?? []) : [],
    );
    const calls = message.tool_calls ?? [];
    const rewrites = runUniqueToolCallIds(
      used,
      calls.map((call) => call.id),
    );
    if (rewrites.length === 0) return message;
    const ids = calls.map((call) => call.id);
    for (const rewrite of rewrites) {
      ids[rewrite.index] = rewrite.id;
      this.ctx.journal.event('TOOL', 'TOOL_CALL_ID_REWRITTEN', {
        tool: calls[rewrite.index].name.slice(0, 64),
        provider_tool_call_id: rewrite.providerId,
        tool_call_id: rewrite.id,
      });
    }
    return withToolCallIds(message, ids);
  }
}

/** Marks a tool call whose arguments could not be parsed; HarnessToolNode answers it through the boundary. */
export const MALFORMED_ARGUMENTS_KEY = '__malformed_arguments__';

/**
 * The provider parser puts calls with unreadable arguments into `invalid_tool_calls`, which the ReAct
 * loop ignores (a turn with only such calls would end the run, and the next request would carry a tool
 * result for a call it no longer shows). Folded into `tool_calls` with the raw text under a marker key,
 * each one reaches the Harness boundary, gets stored and answered, and stays paired with its result.
 */
export function withMalformedCallsAsToolCalls(message: AIMessage): AIMessage {
  const invalid = message.invalid_tool_calls ?? [];
  if (invalid.length === 0) return message;
  return new AIMessage({
    content: message.content,
    id: message.id,
    name: message.name,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    usage_metadata: message.usage_metadata,
    tool_calls: [
      ...(message.tool_calls ?? []),
      ...invalid.map((call) => ({
        type: 'tool_call' as const,
        id: call.id,
        name: call.name ?? '',
        args: { [MALFORMED_ARGUMENTS_KEY]: typeof call.args === 'string' ? call.args : '' },
      })),
    ],
    invalid_tool_calls: [],
  });
}

/**
 * The same reply with its tool calls' ids replaced. The provider's raw copy of the calls is left out:
 * it would carry the old ids, and the request converter reads `tool_calls` whenever there are any.
 */
function withToolCallIds(message: AIMessage, ids: (string | undefined)[]): AIMessage {
  const { tool_calls: _providerCalls, ...additional } = message.additional_kwargs ?? {};
  return new AIMessage({
    content: message.content,
    id: message.id,
    name: message.name,
    additional_kwargs: additional,
    response_metadata: message.response_metadata,
    usage_metadata: message.usage_metadata,
    tool_calls: (message.tool_calls ?? []).map((call, index) => ({ ...call, id: ids[index] })),
    invalid_tool_calls: message.invalid_tool_calls,
  });
}
