import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { convertMessagesToCompletionsMessageParams, OpenAIClient } from '@langchain/openai';
import {
  assistantReasoningOf,
  firstByteBounded,
  FirstByteTimeout,
  ProviderChatModel,
  RETURNED_REASONING,
  withAssistantReasoning,
  withReasoningField,
} from './provider-chat-model';
import { classifyProviderError, providerErrorDetails } from './provider-errors';

const call = (id: string) => ({
  id,
  name: 'query_logs',
  args: { topic: 'APPLICATION' },
  type: 'tool_call' as const,
});

describe('reasoning_content round trip', () => {
  const history = [
    new SystemMessage('<!-- role: diagnosis-agent -->'),
    new HumanMessage('order-123 payment times out'),
    new AIMessage({ content: '', tool_calls: [call('c1')], additional_kwargs: { reasoning_content: 'R1' } }),
    new ToolMessage({ content: '{}', tool_call_id: 'c1' }),
    new AIMessage({ content: 'no reasoning here', tool_calls: [call('c2')] }),
    new ToolMessage({ content: '{}', tool_call_id: 'c2' }),
    new AIMessage({ content: '', tool_calls: [call('c3')], additional_kwargs: { reasoning_content: '' } }),
    new ToolMessage({ content: '{}', tool_call_id: 'c3' }),
  ];
  const request = (): OpenAIClient.Chat.ChatCompletionCreateParamsNonStreaming => ({
    model: 'deepseek-chat',
    messages: convertMessagesToCompletionsMessageParams({ messages: history, model: 'deepseek-chat' }),
  });

  it('the library converter drops it (why ProviderChatModel exists)', () => {
    expect(request().messages.some((message) => 'reasoning_content' in message)).toBe(false);
  });

  it('puts each assistant message reasoning back by position, only where the provider returned it', () => {
    const sent = withAssistantReasoning(request(), assistantReasoningOf(history)).messages;
    expect(sent.map((message) => (message as { reasoning_content?: string }).reasoning_content)).toEqual([
      undefined,
      undefined,
      'R1',
      undefined,
      undefined,
      undefined,
      '',
      undefined,
    ]);
    expect(sent[4]).not.toHaveProperty('reasoning_content');
  });

  it('leaves a request without any reasoning untouched', () => {
    const original = request();
    expect(withAssistantReasoning(original, [undefined, undefined, undefined])).toBe(original);
  });
});

describe('every reasoning field the provider returned goes back', () => {
  const details = [{ type: 'reasoning.encrypted', data: 'opaque' }];
  it('sends back reasoning and reasoning_details exactly as returned, nothing else', () => {
    const completion = withReasoningField({
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          logprobs: null,
          message: {
            role: 'assistant',
            content: '',
            refusal: null,
            reasoning: 'R',
            reasoning_details: details,
          } as never,
        },
      ],
    });
    const returned = (completion.choices[0].message as unknown as Record<string, unknown>)[
      RETURNED_REASONING
    ];
    expect(returned).toEqual({ reasoning: 'R', reasoning_details: details });
    const history = [
      new HumanMessage('q'),
      new AIMessage({
        content: '',
        tool_calls: [call('c1')],
        additional_kwargs: { reasoning_content: 'R', [RETURNED_REASONING]: returned },
      }),
      new ToolMessage({ content: '{}', tool_call_id: 'c1' }),
    ];
    const request = {
      model: 'm',
      messages: convertMessagesToCompletionsMessageParams({ messages: history, model: 'm' }),
    };
    const [, assistant] = withAssistantReasoning(request, assistantReasoningOf(history)).messages;
    expect(assistant).toMatchObject({ reasoning: 'R', reasoning_details: details });
    expect(assistant).not.toHaveProperty('reasoning_content');
  });
});

describe('ProviderChatModel transport', () => {
  let server: Server;
  let requests = 0;
  let baseURL = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests += 1;
      req.resume().on('end', () => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'down', type: 'server_error' } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('makes exactly one attempt and surfaces the provider status', async () => {
    const model = new ProviderChatModel({
      model: 'deepseek-chat',
      apiKey: 'k',
      configuration: { baseURL },
      maxRetries: 0,
    });
    await expect(model.invoke([new HumanMessage('hi')])).rejects.toMatchObject({ status: 503 });
    expect(requests).toBe(1);
  });
});

describe('ProviderChatModel: what the real client makes of provider bodies', () => {
  let server: Server;
  let next: { status: number; body: unknown } = { status: 200, body: {} };
  let baseURL = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume().on('end', () => {
        res.writeHead(next.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(next.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const model = () =>
    new ProviderChatModel({ model: 'm', apiKey: 'k', configuration: { baseURL }, maxRetries: 0 });

  it.each([
    [
      "Gemini's 400 array body",
      400,
      [
        {
          error: {
            code: 400,
            message: 'API key not valid. Please pass a valid API key.',
            status: 'INVALID_ARGUMENT',
          },
        },
      ],
      'MODEL_AUTH_FAILED',
      'API key not valid. Please pass a valid API key.',
    ],
    [
      "vLLM's top-level error body",
      404,
      {
        object: 'error',
        message: 'The model `m` does not exist.',
        type: 'NotFoundError',
        param: null,
        code: 404,
      },
      'MODEL_NOT_FOUND',
      'The model `m` does not exist.',
    ],
    [
      'an HTTP 200 whose body is an error',
      200,
      { error: { code: 402, message: 'Insufficient credits' } },
      'MODEL_QUOTA_EXHAUSTED',
      'Insufficient credits',
    ],
    [
      'a 400 context_length_exceeded',
      400,
      {
        error: {
          message: "This model's maximum context length is 8192 tokens.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
      'MODEL_CONTEXT_TOO_LONG',
      "This model's maximum context length is 8192 tokens.",
    ],
  ])('%s → %s', async (_shape, status, body, code, message) => {
    next = { status, body };
    const error = await model()
      .invoke([new HumanMessage('hi')])
      .catch((thrown: unknown) => thrown);
    expect(classifyProviderError(error)?.code).toBe(code);
    expect(providerErrorDetails(error).message).toBe(message);
  });

  it('reads tool call arguments sent as a JSON object, and a call without an id', async () => {
    next = {
      status: 200,
      body: {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { type: 'function', function: { name: 'query_logs', arguments: { topic: 'APP' } } },
              ],
            },
          },
        ],
      },
    };
    const reply = (await model().invoke([new HumanMessage('hi')])) as AIMessage;
    expect(reply.tool_calls).toEqual([
      expect.objectContaining({ name: 'query_logs', args: { topic: 'APP' } }),
    ]);
    expect(reply.invalid_tool_calls ?? []).toEqual([]);
  });
});

describe('ProviderChatModel: a reply whose tool calls are all unreadable', () => {
  let server: Server;
  let baseURL = '';
  const reply = (calls: { id: string; arguments: string }[]) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: 'query_logs', arguments: call.arguments },
          })),
        },
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  let next: ReturnType<typeof reply>;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume().on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(next));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const invoke = async (calls: { id: string; arguments: string }[]) => {
    next = reply(calls);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const model = new ProviderChatModel({
        model: 'm',
        apiKey: 'k',
        configuration: { baseURL },
        maxRetries: 0,
      });
      const message = (await model.invoke([new HumanMessage('hi')])) as AIMessage;
      return { message, warnings: warn.mock.calls.map((args) => String(args[0])) };
    } finally {
      warn.mockRestore();
    }
  };

  it('keeps them as invalid tool calls without the library warning', async () => {
    const { message, warnings } = await invoke([
      { id: 'c1', arguments: '{"topic": "APP' },
      { id: 'c2', arguments: 'not json' },
    ]);
    expect(warnings.filter((text) => text.includes('New LangChain packages'))).toEqual([]);
    expect(message.tool_calls).toEqual([]);
    expect(message.invalid_tool_calls?.map((call) => [call.id, call.name, call.args])).toEqual([
      ['c1', 'query_logs', '{"topic": "APP'],
      ['c2', 'query_logs', 'not json'],
    ]);
    expect(message.additional_kwargs).not.toHaveProperty('tool_calls');
  });

  it('leaves a reply with a readable call as the library builds it', async () => {
    const { message, warnings } = await invoke([
      { id: 'c1', arguments: '{"topic": "APPLICATION"}' },
      { id: 'c2', arguments: 'not json' },
    ]);
    expect(warnings).toEqual([]);
    expect(message.tool_calls?.map((call) => call.id)).toEqual(['c1']);
    expect(message.invalid_tool_calls?.map((call) => call.id)).toEqual(['c2']);
    expect(message.additional_kwargs.tool_calls).toHaveLength(2);
  });
});

describe('firstByteBounded', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    // Answers /slow never (headers withheld), /fast at once.
    server = createServer((req, res) => {
      if (req.url === '/fast') res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('fails a request whose headers do not come in time, as a timeout', async () => {
    await expect(firstByteBounded(200)(`${url}/slow`)).rejects.toBeInstanceOf(FirstByteTimeout);
  });

  it('lets a prompt answer through', async () => {
    expect((await firstByteBounded(2000)(`${url}/fast`)).status).toBe(200);
  });

  it('is classified as MODEL_TIMEOUT through the real client', async () => {
    const model = new ProviderChatModel({
      model: 'm',
      apiKey: 'k',
      configuration: { baseURL: `${url}/slow`, fetch: firstByteBounded(200) },
      maxRetries: 0,
    });
    const error = await model.invoke([new HumanMessage('hi')]).catch((thrown: unknown) => thrown);
    expect(classifyProviderError(error)?.code).toBe('MODEL_TIMEOUT');
  });
});
