import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeChatModel } from '@test/support/fake-chat-model';
import { heldPace, startUnitRun, unitGateway } from '@test/support/unit-harness';
import { z } from 'zod';
import { modelToolSet } from './model-gateway';

describe('modelToolSet', () => {
  it('converts each tool to the chat-completions function format once, keeping names and order', () => {
    const schema = z.object({ topic: z.enum(['APPLICATION', 'ACCESS']), lookback_minutes: z.number().int() });
    const noop = () => Promise.resolve('');
    const set = modelToolSet([
      tool(noop, { name: 'query_logs', description: 'Search logs.', schema }),
      tool(noop, {
        name: 'search_knowledge',
        description: 'Search runbooks.',
        schema: z.object({ q: z.string() }),
      }),
    ]);
    expect(set.names).toEqual(['query_logs', 'search_knowledge']);
    expect(set.definitions[0]).toMatchObject({
      type: 'function',
      function: {
        name: 'query_logs',
        description: 'Search logs.',
        parameters: {
          type: 'object',
          properties: { topic: { enum: ['APPLICATION', 'ACCESS'] }, lookback_minutes: { type: 'integer' } },
          required: ['topic', 'lookback_minutes'],
        },
      },
    });
  });
});

describe('ModelGateway pace', () => {
  it("asks the run's pace before the provider hears the call, and again before the answer goes back", async () => {
    const model = new FakeChatModel({ roles: { 'intent-router': [{ content: 'DIAGNOSIS' }] } });
    const providerCallsAtPace: number[] = [];
    const { ctx } = startUnitRun({
      pace: () => {
        providerCallsAtPace.push(model.calls.length);
        return Promise.resolve();
      },
    });
    const answer = await unitGateway(model).invoke(ctx, {
      role: 'intent-router',
      messages: [new HumanMessage('order-123 payment times out')],
    });
    ctx.close();
    expect(answer.content).toBe('DIAGNOSIS');
    expect(providerCallsAtPace).toEqual([0, 1]);
  });

  it('hands on an answer that arrived, though the run was stopped while it waited for the pace', async () => {
    const model = new FakeChatModel({ roles: { 'intent-router': [{ content: 'DIAGNOSIS' }] } });
    const client = new AbortController();
    const door = heldPace();
    let paces = 0;
    const { ctx } = startUnitRun({
      parentSignal: client.signal,
      pace: () => (++paces === 1 ? Promise.resolve() : door.pace()),
    });
    const call = unitGateway(model).invoke(ctx, {
      role: 'intent-router',
      messages: [new HumanMessage('order-123 payment times out')],
    });
    while (door.asked === 0) await new Promise((resolve) => setImmediate(resolve));
    client.abort();
    door.open();
    await expect(call).resolves.toMatchObject({ content: 'DIAGNOSIS' });
    ctx.close();
  });

  it('does not call the provider while the pace holds the run', async () => {
    const model = new FakeChatModel({ roles: { 'intent-router': [{ content: 'DIAGNOSIS' }] } });
    const door = heldPace();
    const { ctx } = startUnitRun({ pace: door.pace });
    const call = unitGateway(model).invoke(ctx, {
      role: 'intent-router',
      messages: [new HumanMessage('order-123 payment times out')],
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(model.calls).toHaveLength(0);
    door.open();
    await expect(call).resolves.toMatchObject({ content: 'DIAGNOSIS' });
    expect(model.calls).toHaveLength(1);
    ctx.close();
  });
});
