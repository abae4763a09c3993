import { Inject, Injectable } from '@nestjs/common';
import {
  AgentLoopStopped,
  errorOutcome,
  harnessConfig,
  HarnessConfig,
  HarnessFailureCode,
  RunCancelled,
  RunContext,
} from '@app/harness';
import {
  checkDraftRelease,
  checkGrounding,
  DiagnosisReport,
  Draft,
  EvidenceGuard,
  Fallback,
  fallbackReport,
  FallbackType,
  groundingDetails,
  releaseConfig,
  ReleaseConfig,
  releasedDetails,
  releaseReport,
  withEvidenceLimitations,
  SemanticGuard,
  SemanticUnavailableReason,
  VerifiedSnapshot,
} from '@app/guards';
import { PublishedResult } from '@app/trace';
import type { RunObserver } from '../sse/chat-events';
import { DiagnosisAgent } from './diagnosis-agent';
import { fallbackCause, withCauseText } from './fallback-texts';
import type { PreviousTurn } from './previous-turn';

/** The code of a technical failure in the guard phase: any Harness failure but an unknown error. */
export type GuardFailureCode = Exclude<HarnessFailureCode, 'INTERNAL_ERROR'>;

/** Why a diagnosis was not released, stored as the run's fallback_reason: a closed set. */
export type DiagnosisFallbackReason =
  | 'EVIDENCE_VALIDATION_FAILED'
  | 'EVIDENCE_STORE_UNAVAILABLE'
  | 'EVIDENCE_STORE_LOST'
  | 'DRAFT_UNREADABLE'
  | 'DRAFT_EMPTY'
  | 'AGENT_LOOP_REPEATED'
  | `REPAIR_${GuardFailureCode}`
  | 'RELEASE_CHECK_FAILED'
  | 'GROUNDING_CHECK_FAILED'
  | 'SEMANTIC_UNSUPPORTED'
  | SemanticUnavailableReason
  | `SEMANTIC_${GuardFailureCode}`;

export type DiagnosisOutcome =
  | {
      outcome: 'SUCCESS';
      report: DiagnosisReport;
      conclusion: string | null;
      publishedResult: PublishedResult;
    }
  | { outcome: 'FALLBACK'; fallback: Fallback; fallbackReason: DiagnosisFallbackReason };

/**
 * A technical failure of a guard-phase model call (model failure, retries used up, budget, deadline)
 * ends in the fallback under its code; null for anything else, which propagates.
 */
function guardFailureCode(error: unknown): GuardFailureCode | null {
  const outcome = errorOutcome(error);
  switch (outcome.source) {
    case 'RUN_STOP':
      return outcome.code === 'DEADLINE_EXCEEDED' ? outcome.code : null;
    case 'BUDGET':
    case 'MODEL_CALL':
    case 'RETRY_EXHAUSTED':
      return outcome.code;
    case 'UNKNOWN':
      return null;
  }
}

/** No conclusion and no cited tool call anywhere: nothing a reader could act on or check. */
export function isEmptyDraft(draft: Draft): boolean {
  return draft.conclusion === null && draft.analysis.every((item) => item.tool_call_ids.length === 0);
}

/** Only the client going away stops the guard phase; a passed deadline ends in the fallback instead. */
export function throwIfCancelled(ctx: RunContext): void {
  if (ctx.signal.aborted && ctx.signal.reason instanceof RunCancelled) throw ctx.signal.reason;
}

/**
 * DIAGNOSIS path: agent -> EvidenceGuard (-> one repair -> EvidenceGuard) ->
 * release checks (code) -> grounding check (code) -> SemanticGuard -> release policy. Only a SUPPORTED draft is released; everything else is the fixed fallback.
 * The agent loop runs under a deadline that leaves the guards their time reserve; once a draft exists,
 * a model failure, budget or deadline in repair or review ends in the fallback, never in a failure.
 */
@Injectable()
export class DiagnosisPipeline {
  constructor(
    private readonly agent: DiagnosisAgent,
    private readonly evidenceGuard: EvidenceGuard,
    private readonly semanticGuard: SemanticGuard,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
    @Inject(releaseConfig.KEY) private readonly release: ReleaseConfig,
  ) {}

  async run(
    ctx: RunContext,
    query: string,
    previousTurn: PreviousTurn | null,
    observer: RunObserver,
  ): Promise<DiagnosisOutcome> {
    await this.evidenceGuard.open(ctx);
    ctx.journal.event('AGENT', 'AGENT_STARTED', { previous_turn: previousTurn !== null });
    const agentCtx = ctx.withTimeReserve(this.config.agent.guardTimeReserveMs);
    let answer: string;
    // The error codes of the run's tool results, so a fallback can name an outage the agent ran into.
    const toolErrorCodes = new Set<string>();
    try {
      answer = await this.agent.run(agentCtx, query, previousTurn, observer, toolErrorCodes);
    } catch (error) {
      // A loop that only repeats calls already answered is stopped early, under its own reason.
      if (!(error instanceof AgentLoopStopped)) throw error;
      return this.fallback(ctx, toolErrorCodes, 'EVIDENCE_VALIDATION_FAILED', 'AGENT_LOOP_REPEATED', null);
    } finally {
      agentCtx.close();
    }
    ctx.journal.event('AGENT', 'AGENT_FINISHED', { answer_chars: answer.length });
    // Phase boundary: the agent loop's steps, tool calls and their timeline become visible to trace readers.
    await ctx.journal.flush();

    observer.status('EVIDENCE_VALIDATING', '正在校验证据 / validating evidence');
    let guarded: Awaited<ReturnType<EvidenceGuard['guard']>>;
    try {
      guarded = await this.evidenceGuard.guard(ctx, answer, () =>
        observer.status('EVIDENCE_REPAIRING', '正在修复引用结构 / repairing citations'),
      );
    } catch (error) {
      const code = guardFailureCode(error);
      if (code === null) throw error;
      throwIfCancelled(ctx);
      return this.fallback(ctx, toolErrorCodes, 'EVIDENCE_VALIDATION_FAILED', `REPAIR_${code}`, null);
    }
    if (!guarded.ok) {
      // A store outage (Redis away, or back without this run's records), or an answer that could not be
      // read at all, is not a citation the agent got wrong: each has its own reason.
      const reason = guarded.storeLost
        ? 'EVIDENCE_STORE_LOST'
        : guarded.storeUnavailable
          ? 'EVIDENCE_STORE_UNAVAILABLE'
          : guarded.unreadable
            ? 'DRAFT_UNREADABLE'
            : 'EVIDENCE_VALIDATION_FAILED';
      return this.fallback(ctx, toolErrorCodes, 'EVIDENCE_VALIDATION_FAILED', reason, null);
    }

    throwIfCancelled(ctx);
    const snapshot = guarded.check.snapshot;
    // A report that concludes nothing and cites nothing says nothing: never released as a success.
    if (isEmptyDraft(guarded.draft)) {
      ctx.logger(DiagnosisPipeline.name).warn('the draft has no conclusion and cites no evidence', {
        error_code: 'DRAFT_EMPTY',
        analysis: guarded.draft.analysis.length,
      });
      return this.fallback(ctx, toolErrorCodes, 'EVIDENCE_VALIDATION_FAILED', 'DRAFT_EMPTY', null);
    }
    // Code first: links, markup, contacts, paths and commands no cited runbook or operator allowlist
    // vouches for refuse the draft.
    const checked = checkDraftRelease(guarded.draft, snapshot, this.release.allowlist);
    if (!checked.ok) {
      ctx.journal.event('RELEASE', 'RELEASE_CHECK_FAILED', {
        violations: checked.violations.join(','),
      });
      return this.fallback(ctx, toolErrorCodes, 'SEMANTIC_UNSUPPORTED', 'RELEASE_CHECK_FAILED', snapshot);
    }
    const draft = checked.draft;
    // Then grounding: a claim's error codes, identifiers, quantities and names must be in what it cites.
    const grounding = checkGrounding(draft, snapshot);
    if (!grounding.ok) {
      ctx.journal.event('RELEASE', 'GROUNDING_CHECK_FAILED', groundingDetails(grounding.ungrounded));
      return this.fallback(ctx, toolErrorCodes, 'SEMANTIC_UNSUPPORTED', 'GROUNDING_CHECK_FAILED', snapshot);
    }
    observer.status('SEMANTIC_VALIDATING', '正在进行安全校验 / reviewing the report');
    let review: Awaited<ReturnType<SemanticGuard['review']>>;
    try {
      review = await this.semanticGuard.review(ctx, query, draft, snapshot);
    } catch (error) {
      const code = guardFailureCode(error);
      if (code === null) throw error;
      throwIfCancelled(ctx);
      return this.fallback(ctx, toolErrorCodes, 'SEMANTIC_UNAVAILABLE', `SEMANTIC_${code}`, snapshot);
    }
    if (review.kind === 'UNAVAILABLE')
      return this.fallback(ctx, toolErrorCodes, 'SEMANTIC_UNAVAILABLE', review.reason, snapshot);
    if (review.verdict.verdict === 'UNSUPPORTED')
      return this.fallback(ctx, toolErrorCodes, 'SEMANTIC_UNSUPPORTED', 'SEMANTIC_UNSUPPORTED', snapshot);

    // Released only while still inside the deadline: a review that ended late does not publish.
    throwIfCancelled(ctx);
    if (ctx.remainingMs() === 0)
      return this.fallback(
        ctx,
        toolErrorCodes,
        'SEMANTIC_UNAVAILABLE',
        'SEMANTIC_DEADLINE_EXCEEDED',
        snapshot,
      );
    observer.status('RELEASING', '正在发布报告 / releasing the report');
    // Cited results that could not read part of their scope: stated by code, never left to the model.
    const released = withEvidenceLimitations(draft, snapshot);
    const { report, publishedResult, toolCallIds } = releaseReport(
      query,
      released,
      snapshot,
      this.config.previousTurn,
    );
    ctx.journal.event('RELEASE', 'RELEASED', releasedDetails(toolCallIds));
    return {
      outcome: 'SUCCESS',
      report,
      conclusion: draft.conclusion?.text ?? null,
      publishedResult,
    };
  }

  private async fallback(
    ctx: RunContext,
    toolErrorCodes: ReadonlySet<string>,
    type: FallbackType,
    reason: DiagnosisFallbackReason,
    snapshot: VerifiedSnapshot | null,
  ): Promise<DiagnosisOutcome> {
    ctx.journal.event('RELEASE', 'FALLBACK', { type, reason });
    // The user text comes from the cause (an outage is not "missing data"); the type stays the contract's.
    const fallback = withCauseText(fallbackReport(type, snapshot), fallbackCause(reason, toolErrorCodes));
    return { outcome: 'FALLBACK', fallback, fallbackReason: reason };
  }
}
