import { Injectable } from '@nestjs/common';
import { HumanMessage } from '@langchain/core/messages';
import { HarnessRetryExecutor, InvalidModelOutput, ModelGateway, RunContext, textOf } from '@app/harness';
import { Intent, INTENTS } from '@app/trace';

export interface RoutingInput {
  query: string;
  last_intent: Intent | null;
  last_user_query: string | null;
}

/** Exactly one of the three intents, nothing around it (quotes and whitespace aside). */
export function parseIntent(text: string): Intent | null {
  const value = text
    .trim()
    .replace(/^["'`]+|["'`.]+$/g, '')
    .trim();
  return (INTENTS as readonly string[]).includes(value) ? (value as Intent) : null;
}

/**
 * IntentRouter (seed §4.5): one light, tool-less call on {query, last_intent, last_user_query}; the query
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
