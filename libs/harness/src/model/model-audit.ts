import type { AIMessage } from '@langchain/core/messages';
import type { ReasoningAuditRecord } from '@app/trace';
import type { TokenUsage } from '../run/run-budget';

export function textOf(content: AIMessage['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((part) => (typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : ''))
    .join('');
}

/**
 * What the restricted audit keeps of one model step: the provider's reasoning only when it really sent
 * one, the visible text plus the tool-call plan (never tool results), or the explicit UNAVAILABLE marker.
 */
export function reasoningAuditOf(message: AIMessage): ReasoningAuditRecord {
  const reasoning = message.additional_kwargs?.reasoning_content;
  const reasoningContent = typeof reasoning === 'string' && reasoning.trim() !== '' ? reasoning : null;
  const plan = (message.tool_calls ?? []).map(
    (call) => `tool_call ${call.name} ${JSON.stringify(call.args)}`,
  );
  const assistantText =
    [textOf(message.content), ...plan].filter((line) => line.trim() !== '').join('\n') || null;
  const contentSource = reasoningContent
    ? 'PROVIDER_REASONING'
    : assistantText
      ? 'ASSISTANT_TEXT_ONLY'
      : 'UNAVAILABLE';
  return { contentSource, reasoningContent, assistantText };
}

export const UNAVAILABLE_AUDIT: ReasoningAuditRecord = {
  contentSource: 'UNAVAILABLE',
  reasoningContent: null,
  assistantText: null,
};

export function tokenUsageOf(message: AIMessage): TokenUsage {
  const usage = message.usage_metadata;
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    totalTokens: usage?.total_tokens ?? 0,
  };
}
