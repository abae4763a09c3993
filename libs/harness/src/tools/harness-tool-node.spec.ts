import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { fakeLogTool } from '@test/support/fake-tools';
import { MemoryInvocationStore, startUnitRun, unitHarnessConfig } from '@test/support/unit-harness';
import { BudgetAudit } from '../run/budget-audit';
import { bindHarnessTools } from './harness-tool';
import { HarnessToolNode } from './harness-tool-node';
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
