import { Inject, Injectable } from '@nestjs/common';
import { harnessConfig, HarnessConfig, RunContext } from '@app/harness';
import {
  checkDraftRelease,
  DiagnosisReport,
  EvidenceGuard,
  Fallback,
  fallbackReport,
  FallbackType,
  releaseReport,
  SemanticGuard,
  VerifiedSnapshot,
} from '@app/guards';
import { PublishedResult, TimelineRepository } from '@app/trace';
import type { RunObserver } from '../sse/chat-events';
import { DiagnosisAgent } from './diagnosis-agent';
import type { PreviousTurn } from './previous-turn';

export type DiagnosisOutcome =
  | {
      outcome: 'SUCCESS';
      report: DiagnosisReport;
      conclusion: string | null;
      publishedResult: PublishedResult;
    }
  | { outcome: 'FALLBACK'; fallback: Fallback; fallbackReason: string };

/**
 * DIAGNOSIS path (seed §4.1–4.4, §10.3): agent -> EvidenceGuard (-> one repair -> EvidenceGuard) ->
 * release checks (code) -> SemanticGuard -> release policy. Only a SUPPORTED draft is released; everything else is the fixed fallback.
 */
@Injectable()
export class DiagnosisPipeline {
  constructor(
    private readonly agent: DiagnosisAgent,
    private readonly evidenceGuard: EvidenceGuard,
    private readonly semanticGuard: SemanticGuard,
    private readonly timeline: TimelineRepository,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
  ) {}

  async run(
    ctx: RunContext,
    query: string,
    previousTurn: PreviousTurn | null,
    observer: RunObserver,
  ): Promise<DiagnosisOutcome> {
    await this.timeline.append(ctx.runId, 'AGENT', 'AGENT_STARTED', { previous_turn: previousTurn !== null });
    const answer = await this.agent.run(ctx, query, previousTurn, observer);
    await this.timeline.append(ctx.runId, 'AGENT', 'AGENT_FINISHED', { answer_chars: answer.length });

    observer.status('EVIDENCE_VALIDATING', '正在校验证据 / validating evidence');
    const guarded = await this.evidenceGuard.guard(ctx, answer, () =>
      observer.status('EVIDENCE_REPAIRING', '正在修复引用结构 / repairing citations'),
    );
    if (!guarded.ok)
      return this.fallback(ctx, 'EVIDENCE_VALIDATION_FAILED', 'EVIDENCE_VALIDATION_FAILED', null);

    ctx.throwIfStopped();
    const snapshot = guarded.check.snapshot;
    // Code first: links, markup, contact details and commands the evidence does not hold refuse the draft.
    const checked = checkDraftRelease(guarded.draft, snapshot);
    if (!checked.ok) {
      await this.timeline.append(ctx.runId, 'RELEASE', 'RELEASE_CHECK_FAILED', {
        violations: checked.violations.join(','),
      });
      return this.fallback(ctx, 'SEMANTIC_UNSUPPORTED', 'RELEASE_CHECK_FAILED', snapshot);
    }
    const draft = checked.draft;
    observer.status('SEMANTIC_VALIDATING', '正在进行安全校验 / reviewing the report');
    const review = await this.semanticGuard.review(ctx, query, draft, snapshot);
    if (review.kind === 'UNAVAILABLE')
      return this.fallback(ctx, 'SEMANTIC_UNAVAILABLE', review.reason, snapshot);
    if (review.verdict.verdict === 'UNSUPPORTED')
      return this.fallback(ctx, 'SEMANTIC_UNSUPPORTED', 'SEMANTIC_UNSUPPORTED', snapshot);

    ctx.throwIfStopped();
    observer.status('RELEASING', '正在发布报告 / releasing the report');
    const { report, publishedResult } = releaseReport(query, draft, snapshot, this.config.previousTurn);
    await this.timeline.append(ctx.runId, 'RELEASE', 'RELEASED', { references: report.references.length });
    return {
      outcome: 'SUCCESS',
      report,
      conclusion: draft.conclusion?.text ?? null,
      publishedResult,
    };
  }

  private async fallback(
    ctx: RunContext,
    type: FallbackType,
    reason: string,
    snapshot: VerifiedSnapshot | null,
  ): Promise<DiagnosisOutcome> {
    await this.timeline.append(ctx.runId, 'RELEASE', 'FALLBACK', { type, reason });
    return { outcome: 'FALLBACK', fallback: fallbackReport(type, snapshot), fallbackReason: reason };
  }
}
