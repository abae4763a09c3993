import { AIMessage } from '@langchain/core/messages';
import { MALFORMED_ARGUMENTS_KEY, withMalformedCallsAsToolCalls } from './gateway-chat-model';

describe('withMalformedCallsAsToolCalls', () => {
  it('leaves a message without invalid tool calls as it is', () => {
    const message = new AIMessage({ content: 'x', tool_calls: [{ id: 'a', name: 't', args: {} }] });
    expect(withMalformedCallsAsToolCalls(message)).toBe(message);
  });

  it('turns each invalid tool call into a marked tool call, after the valid ones, keeping ids and order', () => {
    const message = new AIMessage({
      content: 'plan',
      tool_calls: [{ id: 'call_ok', name: 'query_logs', args: { topic: 'APPLICATION' } }],
      invalid_tool_calls: [
        { id: 'call_bad', name: 'query_logs', args: '{"topic": ', error: 'parse', type: 'invalid_tool_call' },
      ],
      additional_kwargs: { reasoning_content: 'kept' },
    });
    const folded = withMalformedCallsAsToolCalls(message);
    expect(folded.content).toBe('plan');
    expect(folded.additional_kwargs).toEqual({ reasoning_content: 'kept' });
    expect(folded.invalid_tool_calls).toEqual([]);
    expect(folded.tool_calls?.map((call) => [call.id, call.name, call.args])).toEqual([
      ['call_ok', 'query_logs', { topic: 'APPLICATION' }],
      ['call_bad', 'query_logs', { [MALFORMED_ARGUMENTS_KEY]: '{"topic": ' }],
    ]);
  });
});
