import { Inject, Injectable } from '@nestjs/common';
import { HumanMessage } from '@langchain/core/messages';
import {
  FailureKind,
  harnessConfig,
  HarnessConfig,
  HarnessRetryExecutor,
  InvalidModelOutput,
  ModelGateway,
  RetryExhausted,
  RunContext,
  textOf,
} from '@app/harness';
import { findReleaseViolations } from './release-checks';
import { releaseConfig, ReleaseConfig } from './release.config';
import { parseVerdict } from './semantic-guard';

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

/**
 * The release gate of a knowledge answer, like SemanticGuard for diagnoses: first the deterministic
 * release checks against the cited excerpts, then the same ChatModel in a fresh, tool-less, single-turn
 * context that sees only the query, the answer and the cited excerpts. Only SUPPORTED is released;
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
    if (input.length > this.config.semantic.maxInputChars) {
      ctx.journal.event('SEMANTIC', 'KNOWLEDGE_REVIEW_SKIPPED', {
        reason: 'INPUT_TOO_LARGE',
        chars: input.length,
      });
      return { release: false, reason: 'KNOWLEDGE_INPUT_TOO_LARGE' };
    }
    const deadline = Date.now() + this.config.semantic.totalTimeoutMs;
    try {
      const verdict = await this.retry.execute(ctx, 'knowledge_guard', async (attempt) => {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new InvalidModelOutput('KNOWLEDGE_REVIEW_TOTAL_TIMEOUT');
        const reply = await this.gateway.invoke(ctx, {
          role: 'knowledge-guard',
          messages: [new HumanMessage(input)],
          attempt,
          timeoutMs: Math.min(this.config.semantic.callTimeoutMs, remaining),
        });
        return parseVerdict(textOf(reply.content));
      });
      // The reason stays in the restricted reasoning audit, never in the trace or to the user.
      ctx.journal.event('SEMANTIC', 'KNOWLEDGE_VERDICT', { verdict: verdict.verdict });
      return verdict.verdict === 'SUPPORTED'
        ? { release: true }
        : { release: false, reason: 'KNOWLEDGE_UNSUPPORTED' };
    } catch (error) {
      if (!(error instanceof RetryExhausted)) throw error;
      return { release: false, reason: `KNOWLEDGE_REVIEW_${error.lastFailure}` };
    }
  }
}
