import { Inject, Injectable } from '@nestjs/common';
import { AIMessage, BaseMessage, HumanMessage, isAIMessage } from '@langchain/core/messages';
import { GraphRecursionError } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import {
  bindHarnessTools,
  BudgetExhausted,
  GatewayChatModel,
  HarnessToolNode,
  harnessConfig,
  HarnessConfig,
  ModelGateway,
  RunContext,
  textOf,
  ToolBoundary,
  ToolCatalog,
} from '@app/harness';
import type { RunObserver } from '../sse/chat-events';
import type { PreviousTurn } from './previous-turn';
import { PLANNING_STATUS, planStatus, toolDoneStatus, ToolLookup, toolRunningStatus } from './status-text';

/** How stale a tool round's rows may get before the loop writes them rather than waiting for its end. */
const LIVE_TRACE_MS = 1000;

/** The error_code of a tool result the boundary wrote (JSON), or null for evidence and unreadable text. */
export function toolErrorCodeOf(content: string): string | null {
  try {
    const parsed = JSON.parse(content) as unknown;
    const code = (parsed as { error_code?: unknown } | null)?.error_code;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

/**
 * The one Diagnosis Agent: LangGraph's prebuilt ReAct loop with the model behind the Harness gateway and
 * the catalog's evidence tools behind the Harness boundary. It sees only the query and the previous turn;
 * its final message is the draft, which it does not get to publish.
 */
@Injectable()
export class DiagnosisAgent {
  private readonly vocabulary: ToolLookup;

  constructor(
    private readonly gateway: ModelGateway,
    private readonly boundary: ToolBoundary,
    private readonly tools: ToolCatalog,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
  ) {
    this.vocabulary = (name) => tools.get(name);
  }

  async run(
    ctx: RunContext,
    query: string,
    previousTurn: PreviousTurn | null,
    observer: RunObserver,
    toolErrorCodes?: Set<string>,
  ): Promise<string> {
    const agent = createReactAgent({
      llm: new GatewayChatModel(this.gateway, ctx, 'diagnosis-agent'),
      tools: new HarnessToolNode(this.boundary, ctx, bindHarnessTools(this.boundary, ctx, this.tools.all())),
    });
    const input = { messages: [new HumanMessage(JSON.stringify({ query, previous_turn: previousTurn }))] };
    let last: AIMessage | undefined;
    let planned = false;
    // The first model call is the longest wait of a run; say what it is doing before it starts.
    observer.status('PLANNING', PLANNING_STATUS);
    try {
      // Each model step and each tool step costs one: the model-call budget always stops the loop first.
      const stream = await agent.stream(input, {
        signal: ctx.signal,
        recursionLimit: 2 * this.config.agent.maxModelCalls + 2,
        streamMode: 'updates',
      });
      for await (const update of stream as AsyncIterable<Record<string, { messages?: BaseMessage[] }>>) {
        const message = update.agent?.messages?.at(-1);
        if (message && isAIMessage(message)) {
          last = message;
          // Status texts come from the tool calls' names and closed-set arguments, never from the message text.
          const calls = message.tool_calls ?? [];
          const plan = planned ? null : planStatus(calls, this.vocabulary);
          planned = true;
          if (plan) observer.status('DIAGNOSIS_PLAN', plan);
          const running = toolRunningStatus(calls, this.vocabulary);
          if (running) observer.status('TOOL_RUNNING', running);
        }
        if (update.tools) {
          observer.status('TOOL_DONE', toolDoneStatus(update.tools.messages?.length ?? 0));
          for (const result of update.tools.messages ?? []) {
            const code = toolErrorCodeOf(textOf(result.content));
            if (code) toolErrorCodes?.add(code);
          }
          // A live trace reader (the web UI polls every 2 s) sees each tool round of a long loop; a
          // round that followed the last write closely waits for the loop's end instead.
          await ctx.journal.flushOlderThan(LIVE_TRACE_MS);
        }
      }
    } catch (error) {
      if (error instanceof GraphRecursionError) throw new BudgetExhausted('MODEL_CALLS');
      throw error;
    }
    ctx.throwIfStopped();
    return last ? textOf(last.content) : '';
  }
}
