import { Inject, Injectable } from '@nestjs/common';
import {
  FailureKind,
  harnessConfig,
  HarnessConfig,
  HarnessRetryExecutor,
  ModelGateway,
  RunContext,
} from '@app/harness';
import { ReviewDependencies, ReviewerIdentity, reviewByModel } from './model-review';
import { findReleaseViolations } from './release-checks';
import { releaseConfig, ReleaseConfig } from './release.config';

/** One retrieved document an answer cites, as the reviewer sees it. */
export interface CitedExcerpt {
  document_id: string;
  title: string;
  excerpt: string;
  /** The document's headings above the excerpt, and where it came from; released with the answer too. */
  breadcrumb?: string;
  source?: string;
}

/** The user-visible part of a knowledge answer. */
export interface KnowledgeDraft {
  answer: string;
  limitations: string;
}

/** Why a knowledge answer is not released (stored as the run's fallback_reason). */
export type KnowledgeRefusal =
  | 'RELEASE_CHECK_FAILED'
  | 'KNOWLEDGE_INPUT_TOO_LARGE'
  | 'KNOWLEDGE_UNSUPPORTED'
  | 'KNOWLEDGE_ANSWER_INVALID'
  | `KNOWLEDGE_REVIEW_${FailureKind}`;

export type KnowledgeReview = { release: true } | { release: false; reason: KnowledgeRefusal };

const KNOWLEDGE_REVIEWER: ReviewerIdentity = {
  role: 'knowledge-guard',
  operation: 'knowledge_guard',
  skippedEvent: 'KNOWLEDGE_REVIEW_SKIPPED',
  verdictEvent: 'KNOWLEDGE_VERDICT',
  totalTimeoutCode: 'KNOWLEDGE_REVIEW_TOTAL_TIMEOUT',
};

/**
 * The release gate of a knowledge answer, like SemanticGuard for diagnoses: first the deterministic
 * release checks against the cited excerpts, then the review loop (model-review.ts) given only the query,
 * the answer and the cited excerpts. Only SUPPORTED is released;
 * UNSUPPORTED, an unreadable verdict after the retry matrix, or input over the limit are refusals.
 */
@Injectable()
export class KnowledgeGuard {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly retry: HarnessRetryExecutor,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
    @Inject(releaseConfig.KEY) private readonly release: ReleaseConfig,
  ) {}

  private reviewDependencies(): ReviewDependencies {
    return { gateway: this.gateway, retry: this.retry, config: this.config };
  }

  async review(
    ctx: RunContext,
    query: string,
    draft: KnowledgeDraft,
    cited: readonly CitedExcerpt[],
  ): Promise<KnowledgeReview> {
    // Titles, headings and sources are released with the answer: checked like the excerpts they head.
    const documents = cited.flatMap((doc) => [
      doc.title,
      doc.breadcrumb ?? '',
      doc.source ?? '',
      doc.excerpt,
    ]);
    const violations = findReleaseViolations(
      [draft.answer, draft.limitations],
      { documents },
      this.release.allowlist,
    );
    if (violations.length > 0) {
      ctx.journal.event('RELEASE', 'RELEASE_CHECK_FAILED', {
        violations: violations.join(','),
      });
      return { release: false, reason: 'RELEASE_CHECK_FAILED' };
    }
    const input = JSON.stringify({
      query,
      answer: draft,
      cited_excerpts: cited.map(({ document_id, title, excerpt }) => ({ document_id, title, excerpt })),
    });
    const outcome = await reviewByModel(this.reviewDependencies(), ctx, KNOWLEDGE_REVIEWER, input);
    switch (outcome.kind) {
      case 'VERDICT':
        return outcome.verdict.verdict === 'SUPPORTED'
          ? { release: true }
          : { release: false, reason: 'KNOWLEDGE_UNSUPPORTED' };
      case 'INPUT_TOO_LARGE':
        return { release: false, reason: 'KNOWLEDGE_INPUT_TOO_LARGE' };
      case 'UNAVAILABLE':
        return { release: false, reason: `KNOWLEDGE_REVIEW_${outcome.failure}` };
    }
  }
}
