import { checkRequest, ProviderProfile, shapeReply } from './provider-profiles';

const system = { role: 'system', content: '<!-- role: diagnosis-agent -->' };
const user = { role: 'user', content: 'order-123 payment times out' };
const call = (id: string) => ({ id, type: 'function', function: { name: 'query_logs', arguments: '{}' } });
const assistantCalling = (ids: string[], extra: object = {}) => ({
  role: 'assistant',
  content: '',
  tool_calls: ids.map(call),
  ...extra,
});
const toolAnswer = (id: string) => ({ role: 'tool', content: '{}', tool_call_id: id });
const body = (messages: object[], extra: object = {}) => ({ model: 'm', messages, ...extra });

describe('checkRequest: each strict rule rejects what the real provider rejects', () => {
  const answered = [system, user, assistantCalling(['c1'], { reasoning_content: 'r' }), toolAnswer('c1')];

  it.each<[string, ProviderProfile, Record<string, unknown>, RegExp, string | null]>([
    [
      'deepseek: assistant tool-call turn without reasoning_content',
      'deepseek-thinking',
      body([system, user, assistantCalling(['c1']), toolAnswer('c1')]),
      /^The `reasoning_content` in the thinking mode must be passed back to the API\.$/,
      'invalid_request_error',
    ],
    [
      'deepseek: tool call not answered',
      'deepseek-thinking',
      body([system, user, assistantCalling(['c1', 'c2'], { reasoning_content: 'r' }), toolAnswer('c1')]),
      /insufficient tool messages following tool_calls message/,
      'invalid_request_error',
    ],
    [
      'openai: tool call not answered before the next message',
      'openai',
      body([system, user, assistantCalling(['c1', 'c2']), toolAnswer('c2'), user]),
      /must be followed by tool messages responding to each 'tool_call_id'\. The following tool_call_ids did not have response messages: c1$/,
      null,
    ],
    [
      'openai: tool message answering nothing',
      'openai',
      body([system, user, toolAnswer('c9')]),
      /^Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'\.$/,
      null,
    ],
    [
      'openai: the same tool_call_id answered twice (a duplicate id in one turn)',
      'openai',
      body([system, user, assistantCalling(['c1', 'c1']), toolAnswer('c1'), toolAnswer('c1')]),
      /^Invalid parameter: more than one tool message responds to tool_call_id 'c1'$/,
      null,
    ],
    [
      'deepseek: the same tool_call_id answered twice',
      'deepseek-thinking',
      body([
        system,
        user,
        assistantCalling(['c1'], { reasoning_content: 'r' }),
        toolAnswer('c1'),
        toolAnswer('c1'),
      ]),
      /more than one tool message responds to tool_call_id 'c1'$/,
      null,
    ],
    [
      'openai: tool message answering an id the assistant did not call',
      'openai',
      body([system, user, assistantCalling(['c1']), toolAnswer('c1'), toolAnswer('c2')]),
      /must be a response to a preceeding message with 'tool_calls'/,
      null,
    ],
    [
      'openai: unknown role',
      'openai',
      body([system, { role: 'thinker', content: 'x' }]),
      /^Invalid value: 'thinker'\. Supported values are: /,
      'invalid_value',
    ],
    [
      'openai: unknown request argument',
      'openai',
      body(answered.slice(0, 2), { thinking: { type: 'enabled' } }),
      /^Unrecognized request argument supplied: thinking$/,
      null,
    ],
    [
      'openai: unknown message field (reasoning_content is not an OpenAI field)',
      'openai',
      body(answered),
      /^Additional properties are not allowed \('reasoning_content' was unexpected\) - 'messages\.2'$/,
      null,
    ],
  ])('%s -> HTTP 400', (_name, profile, request, message, code) => {
    const rejection = checkRequest(profile, request);
    expect(rejection?.status).toBe(400);
    expect(rejection?.body.error.type).toBe('invalid_request_error');
    expect(rejection?.body.error.message).toMatch(message);
    expect(rejection?.body.error.code).toBe(code);
  });

  it.each<[ProviderProfile, Record<string, unknown>]>([
    ['deepseek-thinking', body(answered)],
    ['deepseek-thinking', body([system, user, { role: 'assistant', content: 'final answer' }])],
    [
      'openai',
      body([system, user, assistantCalling(['c1', 'c2']), toolAnswer('c2'), toolAnswer('c1')], {
        max_tokens: 100,
        tools: [],
        tool_choice: 'auto',
      }),
    ],
    ['lenient', body([system, user, assistantCalling(['c1']), { role: 'thinker' }], { anything: 1 })],
  ])('%s accepts a request that follows its rules', (profile, request) => {
    expect(checkRequest(profile, request)).toBeNull();
  });
});

describe('shapeReply', () => {
  const reply = {
    content: 'x'.repeat(400),
    tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'query_logs', arguments: '{}' } }],
    finish_reason: 'tool_calls',
    completion_tokens: 0,
  };
  const context = { role: 'diagnosis-agent', turn: 0 };

  it('deepseek-thinking adds reasoning when the script has none; openai removes it', () => {
    expect(shapeReply('deepseek-thinking', reply, undefined, context).reasoning_content).toBe(
      'stub reasoning of diagnosis-agent, turn 0',
    );
    expect(shapeReply('openai', { ...reply, reasoning_content: 'r' }, undefined, context)).not.toHaveProperty(
      'reasoning_content',
    );
    expect(shapeReply('lenient', reply, 10, context)).toMatchObject({ finish_reason: 'tool_calls' });
  });

  it.each<ProviderProfile>(['openai', 'deepseek-thinking'])(
    '%s cuts a reply at max_tokens with finish_reason length',
    (profile) => {
      const cut = shapeReply(profile, reply, 50, context);
      expect(cut.finish_reason).toBe('length');
      expect(cut.completion_tokens).toBe(50);
      expect(cut.tool_calls).toEqual([]);
      expect(cut.content.length).toBeLessThanOrEqual(200);
      const roomy = shapeReply(profile, reply, 10_000, context);
      expect(roomy).toMatchObject({ finish_reason: 'tool_calls', content: reply.content });
    },
  );
});
