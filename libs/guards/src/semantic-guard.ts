import { Inject, Injectable } from '@nestjs/common';
import { HumanMessage } from '@langchain/core/messages';
import { z } from 'zod';
import {
  FailureKind,
  harnessConfig,
  HarnessConfig,
  HarnessRetryExecutor,
  InvalidModelOutput,
  ModelGateway,
  parseJsonAnswer,
  RetryExhausted,
  RunContext,
  textOf,
} from '@app/harness';
import type { Draft } from './draft.schema';
import type { VerifiedSnapshot } from './evidence-rules';

const verdictSchema = z.strictObject({
  verdict: z.enum(['SUPPORTED', 'UNSUPPORTED']),
  reason: z.string().min(1).max(2000),
});
export type SemanticVerdict = z.infer<typeof verdictSchema>;

/** Why no verdict could be had: the input was over the limit, or the retry matrix gave up on a failure kind. */
export type SemanticUnavailableReason = 'SEMANTIC_INPUT_TOO_LARGE' | `SEMANTIC_${FailureKind}`;

export type SemanticOutcome =
  { kind: 'VERDICT'; verdict: SemanticVerdict } | { kind: 'UNAVAILABLE'; reason: SemanticUnavailableReason };

/** The draft as the reviewer sees it: all user-visible content, no tool_call_ids. */
export function reviewInput(query: string, draft: Draft, snapshot: VerifiedSnapshot) {
  return {
    query,
    draft: {
      conclusion: draft.conclusion
        ? { text: draft.conclusion.text, based_on_analysis_ids: draft.conclusion.based_on_analysis_ids }
        : null,
      analysis: draft.analysis.map(({ analysis_id, kind, text }) => ({ analysis_id, kind, text })),
      action_plan: draft.action_plan,
      recommendations: draft.recommendations,
      limitations: draft.limitations,
    },
    verified_evidence: snapshot.byAnalysis.map(({ analysis_id, analysis_text, verified_evidence }) => ({
      analysis_id,
      analysis_text,
      verified_evidence,
    })),
  };
}

/**
 * SemanticGuard: the same ChatModel in a fresh, tool-less, single-turn context, given only
 * the query, the draft without tool_call_ids and the verified evidence. Timeout, transport failure or an
 * answer that is not exactly {verdict, reason} is retried once with the same input (the retry matrix);
 * after that the review is unavailable. UNSUPPORTED is an answer, not a failure.
 */
@Injectable()
export class SemanticGuard {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly retry: HarnessRetryExecutor,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
  ) {}

  async review(
    ctx: RunContext,
    query: string,
    draft: Draft,
    snapshot: VerifiedSnapshot,
  ): Promise<SemanticOutcome> {
    const input = JSON.stringify(reviewInput(query, draft, snapshot));
    if (input.length > this.config.semantic.maxInputChars) {
      ctx.journal.event('SEMANTIC', 'SEMANTIC_SKIPPED', {
        reason: 'INPUT_TOO_LARGE',
        chars: input.length,
      });
      return { kind: 'UNAVAILABLE', reason: 'SEMANTIC_INPUT_TOO_LARGE' };
    }
    const deadline = Date.now() + this.config.semantic.totalTimeoutMs;
    try {
      const verdict = await this.retry.execute(ctx, 'semantic_guard', async (attempt) => {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new InvalidModelOutput('SEMANTIC_TOTAL_TIMEOUT');
        const reply = await this.gateway.invoke(ctx, {
          role: 'semantic-guard',
          messages: [new HumanMessage(input)],
          attempt,
          timeoutMs: Math.min(this.config.semantic.callTimeoutMs, remaining),
        });
        return parseVerdict(textOf(reply.content));
      });
      // The reason stays in the restricted reasoning audit (the step's assistant text), never in the trace or to the user.
      ctx.journal.event('SEMANTIC', 'SEMANTIC_VERDICT', { verdict: verdict.verdict });
      return { kind: 'VERDICT', verdict };
    } catch (error) {
      if (!(error instanceof RetryExhausted)) throw error;
      return { kind: 'UNAVAILABLE', reason: `SEMANTIC_${error.lastFailure}` };
    }
  }
}

/** Exactly {verdict, reason} or an INVALID_OUTPUT failure (retried by the matrix); shared by both reviewers. */
export function parseVerdict(text: string): SemanticVerdict {
  const value = parseJsonAnswer(text);
  if (value === undefined) throw new InvalidModelOutput('SEMANTIC_UNPARSABLE');
  const parsed = verdictSchema.safeParse(value);
  if (!parsed.success) throw new InvalidModelOutput('SEMANTIC_INVALID');
  return parsed.data;
}
