import { Inject, Injectable } from '@nestjs/common';
import {
  FailureKind,
  harnessConfig,
  HarnessConfig,
  HarnessRetryExecutor,
  ModelGateway,
  RunContext,
} from '@app/harness';
import type { Draft } from './draft.schema';
import type { VerifiedSnapshot } from './evidence-rules';
import { ReviewDependencies, ReviewerIdentity, reviewByModel, ReviewVerdict } from './model-review';

export type SemanticVerdict = ReviewVerdict;

/** Why no verdict could be had: the input was over the limit, or the retry matrix gave up on a failure kind. */
export type SemanticUnavailableReason = 'SEMANTIC_INPUT_TOO_LARGE' | `SEMANTIC_${FailureKind}`;

export type SemanticOutcome =
  { kind: 'VERDICT'; verdict: SemanticVerdict } | { kind: 'UNAVAILABLE'; reason: SemanticUnavailableReason };

const SEMANTIC_REVIEWER: ReviewerIdentity = {
  role: 'semantic-guard',
  operation: 'semantic_guard',
  skippedEvent: 'SEMANTIC_SKIPPED',
  verdictEvent: 'SEMANTIC_VERDICT',
  totalTimeoutCode: 'SEMANTIC_TOTAL_TIMEOUT',
};

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
 * SemanticGuard: the review loop (model-review.ts) given only the query, the draft without tool_call_ids
 * and the verified evidence.
 */
@Injectable()
export class SemanticGuard {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly retry: HarnessRetryExecutor,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
  ) {}

  private reviewDependencies(): ReviewDependencies {
    return { gateway: this.gateway, retry: this.retry, config: this.config };
  }

  async review(
    ctx: RunContext,
    query: string,
    draft: Draft,
    snapshot: VerifiedSnapshot,
  ): Promise<SemanticOutcome> {
    const input = JSON.stringify(reviewInput(query, draft, snapshot));
    const outcome = await reviewByModel(this.reviewDependencies(), ctx, SEMANTIC_REVIEWER, input);
    switch (outcome.kind) {
      case 'VERDICT':
        return outcome;
      case 'INPUT_TOO_LARGE':
        return { kind: 'UNAVAILABLE', reason: 'SEMANTIC_INPUT_TOO_LARGE' };
      case 'UNAVAILABLE':
        return { kind: 'UNAVAILABLE', reason: `SEMANTIC_${outcome.failure}` };
    }
  }
}
