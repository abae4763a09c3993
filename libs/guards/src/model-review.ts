import { HumanMessage } from '@langchain/core/messages';
import { z } from 'zod';
import {
  FailureKind,
  HarnessConfig,
  HarnessRetryExecutor,
  InvalidModelOutput,
  ModelGateway,
  parseJsonAnswer,
  RetryExhausted,
  RunContext,
  textOf,
} from '@app/harness';

const verdictSchema = z.strictObject({
  verdict: z.enum(['SUPPORTED', 'UNSUPPORTED']),
  reason: z.string().min(1).max(2000),
});
export type ReviewVerdict = z.infer<typeof verdictSchema>;

/** What tells one reviewer's records apart from the other's: its prompt role, retry row and event names. */
export interface ReviewerIdentity {
  role: 'semantic-guard' | 'knowledge-guard';
  operation: 'semantic_guard' | 'knowledge_guard';
  skippedEvent: 'SEMANTIC_SKIPPED' | 'KNOWLEDGE_REVIEW_SKIPPED';
  verdictEvent: 'SEMANTIC_VERDICT' | 'KNOWLEDGE_VERDICT';
  totalTimeoutCode: 'SEMANTIC_TOTAL_TIMEOUT' | 'KNOWLEDGE_REVIEW_TOTAL_TIMEOUT';
}

export type ReviewOutcome =
  | { kind: 'VERDICT'; verdict: ReviewVerdict }
  | { kind: 'INPUT_TOO_LARGE' }
  | { kind: 'UNAVAILABLE'; failure: FailureKind };

export interface ReviewDependencies {
  gateway: ModelGateway;
  retry: HarnessRetryExecutor;
  config: HarnessConfig;
}

/**
 * The one review loop of SemanticGuard and KnowledgeGuard: the same ChatModel in a fresh, tool-less,
 * single-turn context given only `input`. Over the input limit it is not asked; a timeout, transport
 * failure or an answer that is not exactly {verdict, reason} is retried by the reviewer's retry-matrix
 * row within one total time budget; after that the review is unavailable. UNSUPPORTED is an answer.
 */
export async function reviewByModel(
  deps: ReviewDependencies,
  ctx: RunContext,
  reviewer: ReviewerIdentity,
  input: string,
): Promise<ReviewOutcome> {
  const limits = deps.config.semantic;
  if (input.length > limits.maxInputChars) {
    ctx.journal.event('SEMANTIC', reviewer.skippedEvent, { reason: 'INPUT_TOO_LARGE', chars: input.length });
    return { kind: 'INPUT_TOO_LARGE' };
  }
  const deadline = Date.now() + limits.totalTimeoutMs;
  try {
    const verdict = await deps.retry.execute(ctx, reviewer.operation, async (attempt) => {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new InvalidModelOutput(reviewer.totalTimeoutCode);
      const reply = await deps.gateway.invoke(ctx, {
        role: reviewer.role,
        messages: [new HumanMessage(input)],
        attempt,
        timeoutMs: Math.min(limits.callTimeoutMs, remaining),
      });
      return parseVerdict(textOf(reply.content));
    });
    // The reason stays in the restricted reasoning audit (the step's assistant text), never in the trace or to the user.
    ctx.journal.event('SEMANTIC', reviewer.verdictEvent, { verdict: verdict.verdict });
    return { kind: 'VERDICT', verdict };
  } catch (error) {
    if (!(error instanceof RetryExhausted)) throw error;
    return { kind: 'UNAVAILABLE', failure: error.lastFailure };
  }
}

/** Exactly {verdict, reason} or an INVALID_OUTPUT failure (retried by the matrix). */
export function parseVerdict(text: string): ReviewVerdict {
  const value = parseJsonAnswer(text);
  if (value === undefined) throw new InvalidModelOutput('SEMANTIC_UNPARSABLE');
  const parsed = verdictSchema.safeParse(value);
  if (!parsed.success) throw new InvalidModelOutput('SEMANTIC_INVALID');
  return parsed.data;
}
