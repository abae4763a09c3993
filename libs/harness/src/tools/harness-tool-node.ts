import { BaseMessage, isAIMessage, ToolMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { MALFORMED_ARGUMENTS_KEY } from '../model/gateway-chat-model';
import { RunContext } from '../run/run-context';
import { HarnessTool } from './harness-tool';
import { ToolBoundary } from './tool-boundary';

/**
 * The prebuilt ToolNode with every tool call of the model's last message answered through the Harness.
 * LangGraph's own node skips a call whose id already has a result in the thread and answers unknown tool
 * names itself; here a repeated id reaches the boundary (DUPLICATE_TOOL_CALL_ID, never an overwrite) and
 * an unknown name is stored and audited as UNKNOWN_TOOL, and a call whose arguments the provider parser
 * could not read (folded in by GatewayChatModel) as INVALID_ARGUMENTS, so every tool call gets exactly one result.
 * Tool errors are observations; only cancellation and the deadline propagate.
 */
export class HarnessToolNode extends ToolNode {
  constructor(
    private readonly boundary: ToolBoundary,
    private readonly ctx: RunContext,
    private readonly harnessTools: HarnessTool[],
  ) {
    super(harnessTools, { handleToolErrors: false });
  }

  protected override async run(
    input: unknown,
    config: LangGraphRunnableConfig,
  ): Promise<{ messages: ToolMessage[] }> {
    const messages = (input as { messages?: BaseMessage[] }).messages ?? [];
    const last = [...messages].reverse().find((message) => isAIMessage(message));
    const calls = last && isAIMessage(last) ? (last.tool_calls ?? []) : [];
    const outputs = await Promise.all(calls.map((call) => this.runTool(call, config, input)));
    return { messages: outputs as ToolMessage[] };
  }

  protected override async runTool(
    call: ToolCall,
    config: LangGraphRunnableConfig,
    state: unknown,
  ): Promise<ToolMessage> {
    const malformed = (call.args as Record<string, unknown> | undefined)?.[MALFORMED_ARGUMENTS_KEY];
    if (typeof malformed === 'string') {
      const result = await this.boundary.rejectMalformedArguments(this.ctx, call.name, call.id, malformed);
      return this.errorMessage(call, result.content);
    }
    if (this.harnessTools.some((tool) => tool.name === call.name))
      return (await super.runTool(call, config, state)) as ToolMessage;
    const known = this.harnessTools.map((tool) => tool.name);
    const result = await this.boundary.rejectUnknownTool(this.ctx, call.name, call.id, call.args, known);
    return this.errorMessage(call, result.content);
  }

  private errorMessage(call: ToolCall, content: string): ToolMessage {
    return new ToolMessage({
      content,
      tool_call_id: call.id ?? '',
      name: call.name.slice(0, 64),
      status: 'error',
    });
  }
}
