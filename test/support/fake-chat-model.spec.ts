import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { classifyProviderError } from '../../libs/harness/src/model/provider-errors';
import { FakeChatModel, FakeProviderError } from './fake-chat-model';

const system = (role: string) => new SystemMessage(`<!-- role: ${role} -->\nYou are a test.`);

describe('FakeChatModel (the stub script format, in process)', () => {
  it('hands out each role its own replies, in order', async () => {
    const model = new FakeChatModel({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }, { content: 'SYSTEM_CHAT' }],
        'system-chat': [{ content: 'hi' }],
      },
    });
    const ask = (role: string) => model.invoke([system(role), new HumanMessage('q')]);
    expect((await ask('intent-router')).content).toBe('DIAGNOSIS');
    expect((await ask('system-chat')).content).toBe('hi');
    expect((await ask('intent-router')).content).toBe('SYSTEM_CHAT');
    expect(model.callsFor('intent-router')).toHaveLength(2);
  });

  it('a `match` reply wins while it fits, and is not consumed', async () => {
    const model = new FakeChatModel({
      roles: { r: [{ match: 'refund', match_path: 'query', content: 'matched' }, { content: 'next' }] },
    });
    const ask = (query: string) => model.invoke([system('r'), new HumanMessage(JSON.stringify({ query }))]);
    expect((await ask('a refund')).content).toBe('matched');
    expect((await ask('a refund again')).content).toBe('matched');
    expect((await ask('other')).content).toBe('next');
  });

  it('object arguments are tool calls; unreadable argument text is an invalid tool call', async () => {
    const model = new FakeChatModel({
      roles: {
        r: [
          {
            tool_calls: [
              { id: 'call_1', name: 'query_logs', arguments: { query: 'x' } },
              { id: 'call_2', name: 'query_logs', arguments: '{"query": ' },
            ],
            reasoning_content: 'thinking',
            usage: { prompt_tokens: 7, completion_tokens: 3 },
          },
        ],
      },
    });
    const reply = await model.invoke([system('r'), new HumanMessage('q')]);
    expect(reply.tool_calls).toEqual([
      expect.objectContaining({ id: 'call_1', name: 'query_logs', args: { query: 'x' } }),
    ]);
    expect(reply.invalid_tool_calls).toEqual([expect.objectContaining({ id: 'call_2', args: '{"query": ' })]);
    expect(reply.additional_kwargs.reasoning_content).toBe('thinking');
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
    expect(reply.response_metadata.finish_reason).toBe('tool_calls');
  });

  it.each([
    { reply: { error: 429, retry_after: '2' }, code: 'MODEL_RATE_LIMITED', retryAfterMs: 2000 },
    { reply: { error: 503 }, code: 'MODEL_UNAVAILABLE', retryAfterMs: undefined },
    { reply: { error: 401 }, code: 'MODEL_AUTH_FAILED', retryAfterMs: undefined },
  ])(
    '`error: $reply.error` throws what the provider client throws ($code)',
    async ({ reply, code, retryAfterMs }) => {
      const model = new FakeChatModel({ roles: { r: [reply] } });
      const failure = await model
        .invoke([system('r'), new HumanMessage('q')])
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(FakeProviderError);
      const classified = classifyProviderError(failure);
      expect(classified?.code).toBe(code);
      expect(classified?.hint.retryAfterMs).toBe(retryAfterMs);
    },
  );

  it('an exhausted role answers HTTP 500, as the stub server does', async () => {
    const model = new FakeChatModel({ roles: { r: [] } });
    await expect(model.invoke([system('r'), new HumanMessage('q')])).rejects.toMatchObject({ status: 500 });
  });

  it('`delay_ms` ends early when the call is aborted', async () => {
    const model = new FakeChatModel({ roles: { r: [{ content: 'late', delay_ms: 60_000 }] } });
    const call = new AbortController();
    setTimeout(() => call.abort(), 10);
    await expect(
      model.invoke([system('r'), new HumanMessage('q')], { signal: call.signal }),
    ).rejects.toThrow();
  });
});
