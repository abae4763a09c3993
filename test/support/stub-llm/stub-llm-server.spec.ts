import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { StubLlmServer } from './stub-llm-server';

const queryLogs = tool(async () => 'unused', {
  name: 'query_logs',
  description: 'query logs',
  schema: z.object({ topic: z.string(), query: z.string(), lookback_minutes: z.number() }),
});

function model(baseURL: string, options: { timeout?: number } = {}) {
  return new ChatOpenAI({
    model: 'deepseek-chat',
    apiKey: 'stub-key',
    configuration: { baseURL },
    maxRetries: 0,
    timeout: options.timeout ?? 5000,
  });
}

const system = (role: string) => new SystemMessage(`<!-- role: ${role} -->\nYou are a test role.`);

describe('StubLlmServer through a real ChatOpenAI client', () => {
  const stub = new StubLlmServer();
  let baseUrl: string;

  beforeAll(async () => {
    baseUrl = await stub.start();
  });
  afterAll(() => stub.stop());
  beforeEach(() => {
    stub.requests.length = 0;
  });

  it.each<['per-response' | 'repeated', string[]]>([
    ['per-response', ['call_0', 'call_1']],
    ['repeated', ['call_0', 'call_0']],
  ])('numbers tool call ids as a %s provider does, whatever the script says', async (numbering, ids) => {
    const call = (id: string) => ({
      id,
      name: 'query_logs',
      arguments: { topic: 'APPLICATION', query: 'HikariPool', lookback_minutes: 30 },
    });
    stub.load({
      profile: 'lenient',
      tool_call_ids: numbering,
      roles: { 'diagnosis-agent': [{ content: '', tool_calls: [call('x'), call('y')] }] },
    });
    const reply = await model(baseUrl)
      .bindTools([queryLogs])
      .invoke([system('diagnosis-agent'), new HumanMessage('order-123 payment times out')]);
    expect(reply.tool_calls?.map((toolCall) => toolCall.id)).toEqual(ids);
  });

  it.each([false, true])(
    'delivers tool calls, usage and reasoning_content (streaming=%s)',
    async (streaming) => {
      stub.load({
        roles: {
          'diagnosis-agent': [
            {
              content: '1. check logs',
              reasoning_content: 'thinking about HikariPool',
              tool_calls: [
                {
                  id: 'call_1',
                  name: 'query_logs',
                  arguments: { topic: 'APPLICATION', query: 'HikariPool', lookback_minutes: 30 },
                },
              ],
              usage: { prompt_tokens: 120, completion_tokens: 30 },
            },
          ],
        },
      });
      const llm = model(baseUrl).bindTools([queryLogs]);
      const input = [system('diagnosis-agent'), new HumanMessage('order-123 payment times out')];
      let reply: AIMessage;
      if (streaming) {
        let merged: AIMessageChunk | undefined;
        for await (const chunk of await llm.stream(input)) merged = merged ? merged.concat(chunk) : chunk;
        reply = merged!;
      } else {
        reply = await llm.invoke(input);
      }

      expect(reply.tool_calls).toEqual([
        expect.objectContaining({
          id: 'call_1',
          name: 'query_logs',
          args: { topic: 'APPLICATION', query: 'HikariPool', lookback_minutes: 30 },
        }),
      ]);
      expect(reply.content).toBe('1. check logs');
      expect(reply.additional_kwargs.reasoning_content).toBe('thinking about HikariPool');
      expect(reply.usage_metadata).toMatchObject({ input_tokens: 120, output_tokens: 30, total_tokens: 150 });
      const [recorded] = stub.requestsFor('diagnosis-agent');
      expect(recorded.body.tools).toHaveLength(1);
      expect(recorded.body.stream === true).toBe(streaming);
    },
  );

  it('routes by role, hands replies out in order and computes usage when the script gives none', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }, { content: 'SYSTEM_CHAT' }],
        'semantic-guard': [{ content: '{"verdict":"SUPPORTED","reason":"ok"}' }],
      },
    });
    const llm = model(baseUrl);
    const first = await llm.invoke([system('intent-router'), new HumanMessage('q1')]);
    const guard = await llm.invoke([system('semantic-guard'), new HumanMessage('draft')]);
    const second = await llm.invoke([system('intent-router'), new HumanMessage('q2')]);
    expect([first.content, guard.content, second.content]).toEqual([
      'DIAGNOSIS',
      '{"verdict":"SUPPORTED","reason":"ok"}',
      'SYSTEM_CHAT',
    ]);
    expect(first.usage_metadata?.input_tokens).toBeGreaterThan(0);
    expect(stub.requests.map((request) => request.role)).toEqual([
      'intent-router',
      'semantic-guard',
      'intent-router',
    ]);
  });

  it('answers HTTP 500 with a clear body once a role is exhausted', async () => {
    stub.load({ roles: { 'intent-router': [{ content: 'DIAGNOSIS' }] } });
    const llm = model(baseUrl);
    await llm.invoke([system('intent-router'), new HumanMessage('q')]);
    await expect(llm.invoke([system('intent-router'), new HumanMessage('q')])).rejects.toMatchObject({
      status: 500,
    });
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'system', content: '<!-- role: intent-router -->' }] }),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: expect.objectContaining({
        code: 'stub_exhausted',
        message: 'stub script has no reply left for role "intent-router"',
      }),
    });
  });

  it('replays scripted HTTP errors', async () => {
    stub.load({ roles: { 'intent-router': [{ error: 429 }, { content: 'DIAGNOSIS' }] } });
    const llm = model(baseUrl);
    await expect(llm.invoke([system('intent-router'), new HumanMessage('q')])).rejects.toMatchObject({
      status: 429,
    });
    await expect(llm.invoke([system('intent-router'), new HumanMessage('q')])).resolves.toMatchObject({
      content: 'DIAGNOSIS',
    });
  });

  it('delays replies, so a client timeout fires and the next request gets the next reply', async () => {
    stub.load({
      roles: { 'intent-router': [{ delay_ms: 5000, content: 'late' }, { content: 'DIAGNOSIS' }] },
    });
    const started = Date.now();
    await expect(
      model(baseUrl, { timeout: 300 }).invoke([system('intent-router'), new HumanMessage('q')]),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(4000);
    await expect(
      model(baseUrl).invoke([system('intent-router'), new HumanMessage('q')]),
    ).resolves.toMatchObject({ content: 'DIAGNOSIS' });
  });

  it('repeats a role when the script says so (the offline demo)', async () => {
    stub.load({ repeat: true, roles: { 'system-chat': [{ content: 'hello' }] } });
    const llm = model(baseUrl);
    for (let i = 0; i < 3; i += 1) {
      await expect(llm.invoke([system('system-chat'), new HumanMessage('hi')])).resolves.toMatchObject({
        content: 'hello',
      });
    }
  });

  it('picks a reply whose match fits the last user message, else the next one in order', async () => {
    stub.load({
      repeat: true,
      roles: { 'intent-router': [{ match: 'hello|你好', content: 'SYSTEM_CHAT' }, { content: 'DIAGNOSIS' }] },
    });
    const llm = model(baseUrl);
    const ask = async (text: string) =>
      (await llm.invoke([system('intent-router'), new HumanMessage(text)])).content;
    expect([
      await ask('hello there'),
      await ask('order-123 times out'),
      await ask('你好'),
      await ask('why?'),
    ]).toEqual(['SYSTEM_CHAT', 'DIAGNOSIS', 'SYSTEM_CHAT', 'DIAGNOSIS']);
  });

  it('picks a reply by turn, so concurrent conversations stay apart', async () => {
    stub.load({
      roles: {
        'diagnosis-agent': [
          { turn: 0, content: 'plan' },
          { turn: 1, content: 'final' },
        ],
      },
    });
    const llm = model(baseUrl);
    const first = [system('diagnosis-agent'), new HumanMessage('q')];
    const second = [...first, new AIMessage('plan'), new HumanMessage('go on')];
    const replies = await Promise.all([llm.invoke(second), llm.invoke(first), llm.invoke(first)]);
    expect(replies.map((reply) => reply.content)).toEqual(['final', 'plan', 'plan']);
  });

  it('rejects a request without a role marker with HTTP 400', async () => {
    await expect(model(baseUrl).invoke([new HumanMessage('no system prompt')])).rejects.toMatchObject({
      status: 400,
    });
  });

  it('accepts a new script over HTTP and refuses an invalid one', async () => {
    const put = (body: unknown) =>
      fetch(baseUrl.replace(/\/v1$/, '/__stub/script'), { method: 'PUT', body: JSON.stringify(body) });
    expect((await put({ roles: { 'system-chat': [{ content: 'via http' }] } })).status).toBe(200);
    await expect(
      model(baseUrl).invoke([system('system-chat'), new HumanMessage('hi')]),
    ).resolves.toMatchObject({ content: 'via http' });
    const refused = await put({ roles: { 'system-chat': [{ contnet: 'typo' }] } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('contnet');
  });
});
