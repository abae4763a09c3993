import { AIMessage } from '@langchain/core/messages';
import { canonicalToolName, toolCallsInText, withToolCallHabits } from './tool-call-habits';

const LOGS = { name: 'query_logs', args: { service: 'order-service', keyword: 'timeout' } };

describe('toolCallsInText', () => {
  it.each([
    [
      'Hermes/Qwen <tool_call>',
      '<tool_call>\n{"name": "query_logs", "arguments": {"service": "order-service", "keyword": "timeout"}}\n</tool_call>',
      { kind: 'calls', format: 'hermes', calls: [LOGS] },
    ],
    [
      'two Hermes blocks',
      '<tool_call>{"name":"query_logs","arguments":{"service":"order-service","keyword":"timeout"}}</tool_call>\n<tool_call>{"name":"lookup_knowledge","arguments":{"query":"pool"}}</tool_call>',
      {
        kind: 'calls',
        format: 'hermes',
        calls: [LOGS, { name: 'lookup_knowledge', args: { query: 'pool' } }],
      },
    ],
    [
      'Mistral [TOOL_CALLS] array',
      '[TOOL_CALLS] [{"name": "query_logs", "arguments": {"service": "order-service", "keyword": "timeout"}}]',
      { kind: 'calls', format: 'mistral', calls: [LOGS] },
    ],
    [
      'Mistral [TOOL_CALLS]name[ARGS]',
      '[TOOL_CALLS]query_logs[ARGS]{"service": "order-service", "keyword": "timeout"}',
      { kind: 'calls', format: 'mistral', calls: [LOGS] },
    ],
    [
      'Llama <|python_tag|> with parameters',
      '<|python_tag|>{"name": "query_logs", "parameters": {"service": "order-service", "keyword": "timeout"}}<|eom_id|>',
      { kind: 'calls', format: 'llama', calls: [LOGS] },
    ],
    [
      'arguments as a JSON text',
      '<tool_call>{"name":"query_logs","arguments":"{\\"service\\":\\"order-service\\",\\"keyword\\":\\"timeout\\"}"}</tool_call>',
      { kind: 'calls', format: 'hermes', calls: [LOGS] },
    ],
    [
      'a broken Hermes block',
      '<tool_call>{"name": "query_logs", "arguments": {</tool_call>',
      { kind: 'unreadable', format: 'hermes' },
    ],
    [
      'an unterminated Hermes block',
      '<tool_call>{"name":"query_logs"}',
      { kind: 'unreadable', format: 'hermes' },
    ],
    [
      'a Mistral marker with prose',
      '[TOOL_CALLS] I would call the logs tool',
      { kind: 'unreadable', format: 'mistral' },
    ],
    ['plain text', 'The pool is exhausted.', null],
    ['a JSON draft', '{"conclusion": null, "analysis": []}', null],
  ])('%s', (_format, content, expected) => {
    expect(toolCallsInText(content)).toEqual(expected);
  });
});

describe('canonicalToolName', () => {
  const known = ['query_logs', 'lookup_knowledge'];
  it.each([
    ['query_logs', 'query_logs'],
    ['functions.query_logs', 'query_logs'],
    ['Query_Logs', 'query_logs'],
    ['functions.LOOKUP_KNOWLEDGE', 'lookup_knowledge'],
    ['query_mysql', 'query_mysql'],
    ['functions.drop_table', 'functions.drop_table'],
  ])('%p -> %p', (name, canonical) => expect(canonicalToolName(name, known)).toBe(canonical));
});

describe('withToolCallHabits', () => {
  const known = ['query_logs'];
  const ids = (index: number) => `call_auto_1_${index}`;

  it('turns text calls into tool calls with assigned ids and empties the content', () => {
    const { message, notes } = withToolCallHabits(
      new AIMessage({ content: '<tool_call>{"name":"functions.query_logs","arguments":{}}</tool_call>' }),
      known,
      ids,
    );
    expect(message.content).toBe('');
    expect(message.tool_calls).toEqual([
      { type: 'tool_call', name: 'query_logs', args: {}, id: 'call_auto_1_0' },
    ]);
    expect(notes).toEqual({
      textFormat: 'hermes',
      textUnreadable: false,
      renamed: [{ from: 'functions.query_logs', to: 'query_logs' }],
      assignedIds: 1,
    });
  });

  it('assigns ids only where they are missing and keeps the others', () => {
    const { message, notes } = withToolCallHabits(
      new AIMessage({
        content: '',
        tool_calls: [
          { name: 'query_logs', args: {}, id: 'call_x' },
          { name: 'query_logs', args: {}, id: '' },
        ],
      }),
      known,
      ids,
    );
    expect(message.tool_calls?.map((call) => call.id)).toEqual(['call_x', 'call_auto_1_1']);
    expect(notes.assignedIds).toBe(1);
  });

  it('leaves an unreadable text call as text, and says so', () => {
    const original = new AIMessage({ content: '<tool_call>{broken</tool_call>' });
    const { message, notes } = withToolCallHabits(original, known, ids);
    expect(message).toBe(original);
    expect(notes).toMatchObject({ textFormat: 'hermes', textUnreadable: true });
  });

  it('returns an ordinary reply unchanged', () => {
    const original = new AIMessage({ content: '', tool_calls: [{ name: 'query_logs', args: {}, id: 'c1' }] });
    expect(withToolCallHabits(original, known, ids).message).toBe(original);
  });
});
