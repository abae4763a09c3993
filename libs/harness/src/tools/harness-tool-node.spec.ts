import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { fakeLogTool } from '@test/support/fake-tools';
import { MemoryInvocationStore, startUnitRun, unitHarnessConfig } from '@test/support/unit-harness';
import { BudgetAudit } from '../run/budget-audit';
import { bindHarnessTools } from './harness-tool';
import { AgentLoopStopped, HarnessToolNode, repeatedCalls } from './harness-tool-node';
import { ToolBoundary } from './tool-boundary';

const call = (id: string, name = 'query_logs') => ({
  id,
  name,
  args: { query: 'order-123 timeout', count: 1 },
  type: 'tool_call' as const,
});

// HarnessToolNode overrides ToolNode's protected `run` and `runTool`; @langchain/langgraph is pinned to
// a minor in package.json, and these fail when an upgrade changes what the override relies on.
describe('HarnessToolNode on ToolNode', () => {
  it('ToolNode still has the hooks the override replaces, with the same parameters', () => {
    const hooks = ToolNode.prototype as unknown as Record<string, unknown>;
    expect(typeof hooks.run).toBe('function');
    expect(typeof hooks.runTool).toBe('function');
    expect((hooks.run as (...args: unknown[]) => unknown).length).toBe(2);
    expect((hooks.runTool as (...args: unknown[]) => unknown).length).toBe(3);
  });

  it('invoking the node runs the override: every call of the last AI message gets exactly one result', async () => {
    const config = unitHarnessConfig();
    const boundary = new ToolBoundary(new MemoryInvocationStore(config), new BudgetAudit(), config);
    const { ctx } = startUnitRun();
    const node = new HarnessToolNode(boundary, ctx, bindHarnessTools(boundary, ctx, [fakeLogTool()]));
    const output = (await node.invoke({
      messages: [
        new HumanMessage('order-123 payment times out'),
        new AIMessage({ content: '', tool_calls: [call('c1')] }),
        new ToolMessage({ content: '{}', tool_call_id: 'c1' }),
        // The library's own node would skip c1 (it already has a result) and answer the unknown name itself.
        new AIMessage({ content: '', tool_calls: [call('c1'), call('c2', 'drop_tables')] }),
      ],
    })) as { messages: ToolMessage[] };
    await ctx.journal.flush();
    ctx.close();
    expect(output.messages.map((message) => [message.tool_call_id, message.status])).toEqual([
      ['c1', 'success'],
      ['c2', 'error'],
    ]);
    expect(String(output.messages[1].content)).toContain('UNKNOWN_TOOL');
  });
});

describe('repeatedCalls', () => {
  const logs = (id: string, args: Record<string, unknown>) => ({
    id,
    name: 'query_logs',
    args,
    type: 'tool_call' as const,
  });
  const A = { query: 'pool', count: 1 };
  it.each([
    [
      'the same tool and arguments, keys in another order',
      [
        new AIMessage({ content: '', tool_calls: [logs('c1', A)] }),
        new ToolMessage({ content: '{}', tool_call_id: 'c1' }),
      ],
      [logs('c2', { count: 1, query: 'pool' })],
      ['c1'],
    ],
    [
      'other arguments',
      [
        new AIMessage({ content: '', tool_calls: [logs('c1', A)] }),
        new ToolMessage({ content: '{}', tool_call_id: 'c1' }),
      ],
      [logs('c2', { ...A, count: 2 })],
      [undefined],
    ],
    [
      'an earlier call that failed',
      [
        new AIMessage({ content: '', tool_calls: [logs('c1', A)] }),
        new ToolMessage({ content: '{}', tool_call_id: 'c1', status: 'error' }),
      ],
      [logs('c2', A)],
      [undefined],
    ],
    ['twice in one reply', [], [logs('c1', A), logs('c2', A)], [undefined, 'c1']],
  ])('%s', (_case, earlier, calls, sameAs) => {
    const history = [new HumanMessage('q'), ...earlier, new AIMessage({ content: '', tool_calls: calls })];
    const repeats = repeatedCalls(history, calls);
    expect(calls.map((item) => repeats.get(item))).toEqual(sameAs);
  });
});

describe('HarnessToolNode: repeated identical calls', () => {
  it('answers a repeat from the record without running the tool, then stops a loop that keeps repeating', async () => {
    const config = unitHarnessConfig();
    const boundary = new ToolBoundary(new MemoryInvocationStore(config), new BudgetAudit(), config);
    const { ctx } = startUnitRun();
    let runs = 0;
    const tool = fakeLogTool({
      execute: () => ((runs += 1), Promise.resolve({ lines: [], secret_marker: 'x' })),
    });
    const node = new HarnessToolNode(boundary, ctx, bindHarnessTools(boundary, ctx, [tool]));
    const first = (await node.invoke({
      messages: [new HumanMessage('q'), new AIMessage({ content: '', tool_calls: [call('c1')] })],
    })) as {
      messages: ToolMessage[];
    };
    const history = [
      new HumanMessage('q'),
      new AIMessage({ content: '', tool_calls: [call('c1')] }),
      ...first.messages,
    ];
    const second = (await node.invoke({
      messages: [...history, new AIMessage({ content: '', tool_calls: [call('c2')] })],
    })) as { messages: ToolMessage[] };
    expect(runs).toBe(1);
    expect(JSON.parse(String(second.messages[0].content))).toMatchObject({
      repeated_call: true,
      same_as_tool_call_id: 'c1',
    });
    await expect(
      node.invoke({
        messages: [
          ...history,
          new AIMessage({ content: '', tool_calls: [call('c2')] }),
          ...second.messages,
          new AIMessage({ content: '', tool_calls: [call('c3')] }),
        ],
      }),
    ).rejects.toBeInstanceOf(AgentLoopStopped);
    expect(runs).toBe(1);
    ctx.close();
  });
});
