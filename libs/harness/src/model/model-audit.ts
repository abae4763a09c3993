import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { Tiktoken } from 'js-tiktoken' with { 'resolution-mode': 'require' };

// The package ships CommonJS next to ESM but declares its types as ESM only; require picks its CJS build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { getEncoding } = require('js-tiktoken') as { getEncoding(name: 'cl100k_base'): Tiktoken };
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

let encoding: Tiktoken | undefined;
const countTokens = (text: string) => (encoding ??= getEncoding('cl100k_base')).encode(text).length;

/**
 * Token usage when the server sent no `usage`: counted with a real BPE tokenizer (cl100k), so budgets
 * still trip. The figure is an estimate (each provider tokenizes its own way), and the trace says so.
 */
export function estimatedTokenUsage(request: BaseMessage[], reply: AIMessage): TokenUsage {
  const inputTokens = request.reduce(
    (sum, message) => sum + countTokens(textOf(message.content as AIMessage['content'])),
    0,
  );
  const outputTokens = countTokens(
    [
      textOf(reply.content),
      ...(reply.tool_calls ?? []).map((call) => `${call.name}${JSON.stringify(call.args)}`),
    ].join(''),
  );
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

export function tokenUsageOf(message: AIMessage): TokenUsage {
  const usage = message.usage_metadata;
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    totalTokens: usage?.total_tokens ?? 0,
  };
}
