import { Injectable } from '@nestjs/common';
import { HumanMessage } from '@langchain/core/messages';
import {
  HarnessRetryExecutor,
  InvalidModelOutput,
  ModelGateway,
  parseJsonAnswer,
  RunContext,
  textOf,
} from '@app/harness';
import { Intent, INTENTS } from '@app/contracts';

export interface RoutingInput {
  query: string;
  last_intent: Intent | null;
  last_user_query: string | null;
}

/** Thinking blocks that local servers without a reasoning parser leave in the content (Ollama, LM Studio, vLLM). */
const THINK_BLOCK = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;
/** Markdown emphasis, headings, quotes and trailing punctuation around a label. */
const DECORATION = /^[\s#>*_`"'“”‘’]+|[\s*_`"'“”‘’.:!,;]+$/g;
const LABEL_WORD = /[A-Za-z_]+/g;

/** Labels as Chinese-speaking models write them, longest first; only the first line may use one. */
const CHINESE_LABELS: readonly [string, Intent][] = [
  ['故障诊断', 'DIAGNOSIS'],
  ['诊断', 'DIAGNOSIS'],
  ['知识库查询', 'KNOWLEDGE_QUERY'],
  ['知识库问答', 'KNOWLEDGE_QUERY'],
  ['知识查询', 'KNOWLEDGE_QUERY'],
  ['知识问答', 'KNOWLEDGE_QUERY'],
  ['系统对话', 'SYSTEM_CHAT'],
  ['系统聊天', 'SYSTEM_CHAT'],
  ['闲聊', 'SYSTEM_CHAT'],
];
/** Keys a JSON-wrapped label comes under (`{"intent":"DIAGNOSIS"}`). */
const LABEL_KEYS = new Set([
  'intent',
  'label',
  'category',
  'class',
  'classification',
  'type',
  '意图',
  '类别',
]);
/** gpt-oss harmony markup: the final channel's message, special tokens kept or flattened to words. */
const HARMONY_FINAL = /<\|channel\|>\s*final\s*<\|message\|>([\s\S]*?)(?:<\|(?:end|return|call)\|>|$)/;
const HARMONY_FLAT = /^\s*analysis[\s\S]*?assistantfinal([\s\S]*)$/;

/**
 * What a reply says once the markup models wrap it in is gone: thinking blocks dropped, and for gpt-oss
 * harmony output only the final channel (null when there is markup but no final channel: the analysis
 * channel is the model thinking aloud, not its answer).
 */
function visibleAnswer(text: string): string | null {
  const visible = text.replace(THINK_BLOCK, '');
  if (/<\/?(think|thinking|reasoning)>/i.test(visible)) return null;
  if (/<\|(channel|message|start)\|>/.test(visible)) return HARMONY_FINAL.exec(visible)?.[1] ?? null;
  return HARMONY_FLAT.exec(visible)?.[1] ?? visible;
}

/** The label inside a JSON answer: the string under a label key, or the object's only string value. */
function labelInJson(text: string): string | undefined {
  const value = parseJsonAnswer(text);
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  const keyed = entries.filter(
    ([key, item]) => LABEL_KEYS.has(key.toLowerCase()) && typeof item === 'string',
  );
  const strings = entries.filter(([, item]) => typeof item === 'string');
  const chosen = keyed.length === 1 ? keyed : strings.length === 1 ? strings : [];
  return chosen.length === 1 ? String(chosen[0][1]) : undefined;
}

/**
 * The one intent a reply names, read the way a careful parser reads it: markup dropped (thinking
 * blocks, harmony channels), a JSON wrapper opened, then the first non-blank line stripped of emphasis,
 * quotes and case. The label (or its Chinese name) must be that whole line or its first word, and no
 * other label may appear anywhere in the reply; anything else is off-enum (null).
 */
export function parseIntent(text: string): Intent | null {
  const answer = visibleAnswer(text);
  if (answer === null) return null;
  const visible = labelInJson(answer) ?? answer;
  const firstLine = visible.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  const cleaned = firstLine.replace(DECORATION, '').replace(/[*_`]{2,}/g, '');
  const chinese = CHINESE_LABELS.find(([name]) => new RegExp(`^${name}(?![\\p{L}])`, 'u').test(cleaned));
  const firstWord = chinese?.[1] ?? (/^[A-Za-z_]+/.exec(cleaned)?.[0] ?? '').toUpperCase();
  if (!(INTENTS as readonly string[]).includes(firstWord)) return null;
  const named = new Set(
    [...visible.matchAll(LABEL_WORD)]
      .map((match) => match[0].toUpperCase())
      .filter((word) => (INTENTS as readonly string[]).includes(word)),
  );
  named.add(firstWord);
  return named.size === 1 ? (firstWord as Intent) : null;
}

/**
 * IntentRouter: one light, tool-less call on {query, last_intent, last_user_query}; the query
 * is never rewritten. Timeout, transport failure or a value outside the enum is retried once (the retry
 * matrix); a second failure surfaces as RetryExhausted — it never defaults to DIAGNOSIS.
 */
@Injectable()
export class IntentRouter {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly retry: HarnessRetryExecutor,
  ) {}

  async route(ctx: RunContext, input: RoutingInput): Promise<Intent> {
    const intent = await this.retry.execute(ctx, 'intent_router', async (attempt) => {
      const reply = await this.gateway.invoke(ctx, {
        role: 'intent-router',
        messages: [new HumanMessage(JSON.stringify(input))],
        attempt,
      });
      const text = textOf(reply.content);
      const intent = parseIntent(text);
      if (intent !== null) return intent;
      // Named in the log (its length only, never the text): the router's answer named no single label.
      ctx.logger(IntentRouter.name).warn('the router answer names no single intent', {
        error_code: 'INTENT_OUT_OF_ENUM',
        attempt,
        answer_chars: text.length,
      });
      throw new InvalidModelOutput('INTENT_OUT_OF_ENUM');
    });
    ctx.journal.event('ROUTING', 'ROUTED', { intent });
    return intent;
  }
}
