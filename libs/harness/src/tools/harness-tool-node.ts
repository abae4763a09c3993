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

  /** Turns in which the model only repeated calls it had already made. */
  private repeatOnlyTurns = 0;

  protected override async run(
    input: unknown,
    config: LangGraphRunnableConfig,
  ): Promise<{ messages: ToolMessage[] }> {
    const messages = (input as { messages?: BaseMessage[] }).messages ?? [];
    const last = [...messages].reverse().find((message) => isAIMessage(message));
    const calls = last && isAIMessage(last) ? (last.tool_calls ?? []) : [];
    const repeats = repeatedCalls(messages, calls);
    if (calls.length > 0 && repeats.size === calls.length) {
      this.repeatOnlyTurns += 1;
      // Told once that its calls were answered from the record; doing it again is a loop.
      if (this.repeatOnlyTurns > MAX_REPEAT_ONLY_TURNS) {
        this.ctx.journal.event('TOOL', 'TOOL_CALL_REPEATED', { calls: calls.length, loop_stopped: true });
        this.ctx.logger(HarnessToolNode.name).warn('the agent loop repeated identical tool calls; stopped', {
          error_code: 'AGENT_LOOP_REPEATED',
          repeat_only_turns: this.repeatOnlyTurns,
        });
        throw new AgentLoopStopped();
      }
    }
    const outputs = await Promise.all(
      calls.map((call) => {
        const earlier = repeats.get(call);
        return earlier === undefined ? this.runTool(call, config, input) : this.answerRepeat(call, earlier);
      }),
    );
    return { messages: outputs as ToolMessage[] };
  }

  /**
   * A call identical (same tool, same arguments) to one the run already made and got a result for is
   * not run again: it is answered from the run's own record with a note naming the earlier call.
   */
  private answerRepeat(call: ToolCall, earlierId: string): ToolMessage {
    this.ctx.journal.event('TOOL', 'TOOL_CALL_REPEATED', {
      tool: call.name.slice(0, 64),
      tool_call_id: call.id ?? '',
      same_as_tool_call_id: earlierId,
    });
    return new ToolMessage({
      content: JSON.stringify({
        repeated_call: true,
        same_as_tool_call_id: earlierId,
        note:
          `This exact call was already made as ${earlierId} and its result is above; it was not run again. ` +
          `Cite ${earlierId}, call something different, or write the final report.`,
      }),
      tool_call_id: call.id ?? '',
      name: call.name.slice(0, 64),
      status: 'success',
    });
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

/** How many turns of nothing but repeated calls the loop allows before it is stopped. */
const MAX_REPEAT_ONLY_TURNS = 1;

/** The agent loop was stopped because it kept repeating calls already answered (docs/provider-failures.md). */
export class AgentLoopStopped extends Error {
  constructor() {
    super('the agent loop repeated identical tool calls');
    this.name = 'AgentLoopStopped';
  }
}

/** Arguments as canonical JSON (keys sorted at every level), so key order does not make a call new. */
export function canonicalArgs(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalArgs).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalArgs((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * The calls of the last reply that repeat a call the run already made with a successful result (or an
 * earlier call of the same reply), each with the id of that earlier call.
 */
export function repeatedCalls(history: BaseMessage[], calls: ToolCall[]): Map<ToolCall, string> {
  const answered = new Set(
    history
      .filter((message): message is ToolMessage => ToolMessage.isInstance(message))
      .filter((message) => message.status !== 'error')
      .map((message) => message.tool_call_id),
  );
  const seen = new Map<string, string>();
  const last = history.findLastIndex((message) => isAIMessage(message));
  history.slice(0, last).forEach((message) => {
    if (!isAIMessage(message)) return;
    for (const call of message.tool_calls ?? [])
      if (call.id && answered.has(call.id)) seen.set(`${call.name}|${canonicalArgs(call.args)}`, call.id);
  });
  const repeats = new Map<ToolCall, string>();
  for (const call of calls) {
    const key = `${call.name}|${canonicalArgs(call.args)}`;
    const earlier = seen.get(key);
    if (earlier !== undefined && earlier !== call.id) repeats.set(call, earlier);
    else if (call.id && earlier === undefined) seen.set(key, call.id);
  }
  return repeats;
}
