import { AIMessage } from '@langchain/core/messages';
import { reasoningAuditOf, tokenUsageOf } from './model-audit';

describe('reasoningAuditOf', () => {
  it('keeps provider reasoning only when the provider returned it', () => {
    const message = new AIMessage({ content: 'plan', additional_kwargs: { reasoning_content: 'because X' } });
    expect(reasoningAuditOf(message)).toEqual({
      contentSource: 'PROVIDER_REASONING',
      reasoningContent: 'because X',
      assistantText: 'plan',
    });
  });

  it('records visible text plus the tool-call plan, never fabricating reasoning', () => {
    const message = new AIMessage({
      content: '1. check logs',
      tool_calls: [{ id: 'call_1', name: 'query_logs', args: { topic: 'APPLICATION' } }],
    });
    expect(reasoningAuditOf(message)).toEqual({
      contentSource: 'ASSISTANT_TEXT_ONLY',
      reasoningContent: null,
      assistantText: '1. check logs\ntool_call query_logs {"topic":"APPLICATION"}',
    });
  });

  it.each([
    ['empty output', new AIMessage({ content: '' })],
    [
      'blank reasoning and text',
      new AIMessage({ content: '  ', additional_kwargs: { reasoning_content: ' ' } }),
    ],
  ])('marks %s as UNAVAILABLE', (_name, message) => {
    expect(reasoningAuditOf(message)).toEqual({
      contentSource: 'UNAVAILABLE',
      reasoningContent: null,
      assistantText: null,
    });
  });
});

describe('tokenUsageOf', () => {
  it('reads usage_metadata and defaults to zero', () => {
    const message = new AIMessage({
      content: 'x',
      usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    });
    expect(tokenUsageOf(message)).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
    expect(tokenUsageOf(new AIMessage('x'))).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });
});
