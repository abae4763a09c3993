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
} from '@app/harness';
import { EvidenceTools } from '@app/tools';
import type { RunObserver } from '../sse/chat-events';
import { sanitizePlan } from './plan-sanitizer';
import type { PreviousTurn } from './previous-turn';

const TOOL_LABELS: Record<string, string> = {
  lookup_knowledge: '知识库 / knowledge base',
  query_logs: '日志 / logs',
  query_mysql: '业务数据库 / business database',
};

/**
 * The one Diagnosis Agent: LangGraph's prebuilt ReAct loop with the model behind the Harness gateway and
 * the three evidence tools behind the Harness boundary. It sees only the query and the previous turn;
 * its final message is the draft, which it does not get to publish.
 */
@Injectable()
export class DiagnosisAgent {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly boundary: ToolBoundary,
    private readonly tools: EvidenceTools,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
  ) {}

  async run(
    ctx: RunContext,
    query: string,
    previousTurn: PreviousTurn | null,
    observer: RunObserver,
  ): Promise<string> {
    const agent = createReactAgent({
      llm: new GatewayChatModel(this.gateway, ctx, 'diagnosis-agent'),
      tools: new HarnessToolNode(this.boundary, ctx, bindHarnessTools(this.boundary, ctx, this.tools.all())),
    });
    const input = { messages: [new HumanMessage(JSON.stringify({ query, previous_turn: previousTurn }))] };
    let last: AIMessage | undefined;
    let planned = false;
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
          if (!planned) {
            planned = true;
            const plan = sanitizePlan(textOf(message.content));
            if (plan) observer.status('DIAGNOSIS_PLAN', plan);
          }
          const names = [
            ...new Set((message.tool_calls ?? []).map((call) => TOOL_LABELS[call.name] ?? call.name)),
          ];
          if (names.length > 0) observer.status('TOOL_RUNNING', `正在查询 / querying: ${names.join(', ')}`);
        }
        if (update.tools)
          observer.status(
            'TOOL_DONE',
            `已获得 ${update.tools.messages?.length ?? 0} 个工具结果 / tool results received`,
          );
      }
    } catch (error) {
      if (error instanceof GraphRecursionError) throw new BudgetExhausted('MODEL_CALLS');
      throw error;
    }
    ctx.throwIfStopped();
    return last ? textOf(last.content) : '';
  }
}
