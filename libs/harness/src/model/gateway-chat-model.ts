import { BaseChatModel, BindToolsInput } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { RunContext } from '../run/run-context';
import { textOf } from './model-audit';
import { ModelGateway } from './model-gateway';
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
    private readonly tools: BindToolsInput[] = [],
  ) {
    super({});
  }

  _llmType(): string {
    return 'harness-gateway';
  }

  override bindTools(tools: BindToolsInput[]): GatewayChatModel {
    return new GatewayChatModel(this.gateway, this.ctx, this.role, tools);
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = await this.gateway.invoke(this.ctx, { role: this.role, messages, tools: this.tools });
    return { generations: [{ message, text: textOf(message.content) }] };
  }
}
