import { Injectable } from '@nestjs/common';
import { HumanMessage } from '@langchain/core/messages';
import { HarnessRetryExecutor, InvalidModelOutput, ModelGateway, RunContext, textOf } from '@app/harness';
import { Intent, INTENTS } from '@app/trace';

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

/**
 * The one intent a reply names, read the way a careful parser reads it: thinking blocks dropped, then
 * the first non-blank line stripped of emphasis, quotes and case. The label must be that whole line or
 * its first word, and no other label may appear anywhere in the reply; anything else is off-enum (null).
 */
export function parseIntent(text: string): Intent | null {
  const visible = text.replace(THINK_BLOCK, '');
  if (/<\/?(think|thinking|reasoning)>/i.test(visible)) return null;
  const firstLine = visible.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  const cleaned = firstLine.replace(DECORATION, '').replace(/[*_`]{2,}/g, '');
  const firstWord = (/^[A-Za-z_]+/.exec(cleaned)?.[0] ?? '').toUpperCase();
  if (!(INTENTS as readonly string[]).includes(firstWord)) return null;
  const named = new Set(
    [...visible.matchAll(LABEL_WORD)]
      .map((match) => match[0].toUpperCase())
      .filter((word) => (INTENTS as readonly string[]).includes(word)),
  );
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
      return (
        parseIntent(textOf(reply.content)) ?? Promise.reject(new InvalidModelOutput('INTENT_OUT_OF_ENUM'))
      );
    });
    ctx.journal.event('ROUTING', 'ROUTED', { intent });
    return intent;
  }
}
