import { Injectable } from '@nestjs/common';
import { HumanMessage } from '@langchain/core/messages';
import {
  CanonicalInvocation,
  EvidenceStoreUnavailable,
  InvocationStore,
  ModelGateway,
  RunContext,
  textOf,
  ToolCatalog,
} from '@app/harness';
import { ToolInvocationRepository } from '@app/trace';
import { Draft, parseDraft } from './draft.schema';
import { checkEvidence, EvidenceCheck } from './evidence-rules';
import { repairContentChanges } from './repair-scope';

export type GuardedDraft =
  | { ok: true; draft: Draft; check: Extract<EvidenceCheck, { ok: true }> }
  | { ok: false; violations: string[]; storeUnavailable?: true; storeLost?: true };

const STORE_UNAVAILABLE = 'EVIDENCE_STORE_UNAVAILABLE';
const STORE_LOST = 'EVIDENCE_STORE_LOST';

/**
 * EvidenceGuard: the agent's answer must parse as a Draft and every citation must be a
 * READY canonical invocation of this run. On failure, one tool-less structural repair (role
 * evidence-repair, told the exact violations), then the same checks once more, plus a check that the
 * repair changed structure only (every text as the agent wrote it).
 */
@Injectable()
export class EvidenceGuard {
  constructor(
    private readonly store: InvocationStore,
    private readonly gateway: ModelGateway,
    private readonly invocations: ToolInvocationRepository,
    private readonly tools: ToolCatalog,
  ) {}

  /**
   * Marks the run's start in the evidence store, so that a store which later loses the run's records
   * (a Redis restart without persistence, a flush) is told apart from a draft citing calls never made.
   * A store down now is only logged: the tool calls will meet it (and say so) on their own.
   */
  async open(ctx: RunContext): Promise<void> {
    try {
      await this.store.openRun(ctx.runId);
    } catch (error) {
      if (!(error instanceof EvidenceStoreUnavailable)) throw error;
      ctx
        .logger(EvidenceGuard.name)
        .warn('the evidence store could not be marked at the run start', { error_code: STORE_UNAVAILABLE });
    }
  }

  async guard(ctx: RunContext, answer: string, onRepair: () => void): Promise<GuardedDraft> {
    const first = await this.verify(ctx, answer);
    ctx.journal.event('EVIDENCE', 'EVIDENCE_CHECKED', {
      attempt: 1,
      ok: first.ok,
      violations: first.ok ? 0 : first.violations.length,
      ...storeCode(first),
    });
    // No repair can make a citation verifiable while the store that holds the evidence is away.
    if (first.ok || first.storeUnavailable) return first;

    onRepair();
    ctx.throwIfStopped();
    const repaired = await this.repair(ctx, answer, first.violations);
    const checked = await this.verify(ctx, repaired);
    const changes = checked.ok ? repairContentChanges(answer, checked.draft) : [];
    const second: GuardedDraft = changes.length > 0 ? { ok: false, violations: changes } : checked;
    ctx.journal.event('EVIDENCE', 'EVIDENCE_CHECKED', {
      attempt: 2,
      ok: second.ok,
      violations: second.ok ? 0 : second.violations.length,
      content_changed: changes.length > 0,
      ...storeCode(second),
    });
    return second;
  }

  async verify(ctx: RunContext, answer: string): Promise<GuardedDraft> {
    const parsed = parseDraft(answer);
    if (!parsed.ok) return parsed;
    const ids = [...new Set(parsed.draft.analysis.flatMap((analysis) => analysis.tool_call_ids))];
    const records = new Map<string, CanonicalInvocation | null>();
    try {
      for (const id of ids) records.set(id, await this.store.get(ctx.runId, id));
      // A citation the store does not hold is the draft's fault only while the store still holds this run.
      if ([...records.values()].includes(null) && !(await this.store.runIntact(ctx.runId))) {
        ctx
          .logger(EvidenceGuard.name)
          .warn("the evidence store lost this run's records (restarted or flushed)", {
            error_code: STORE_LOST,
          });
        return {
          ok: false,
          violations: ["the evidence store lost this run's records, so no citation can be verified"],
          storeUnavailable: true,
          storeLost: true,
        };
      }
    } catch (error) {
      if (error instanceof EvidenceStoreUnavailable)
        return {
          ok: false,
          violations: ['the evidence store is unavailable, so no citation can be verified'],
          storeUnavailable: true,
        };
      throw error;
    }
    const check = checkEvidence(parsed.draft, ctx.runId, records, (name) => this.tools.get(name));
    return check.ok ? { ok: true, draft: parsed.draft, check } : check;
  }

  /** The one repair call: no tools, just the draft, the violations and the calls this run really made. */
  private async repair(ctx: RunContext, answer: string, violations: string[]): Promise<string> {
    // The run's calls are read back from MySQL, so what its journal still holds is written first.
    await ctx.journal.flush();
    const calls = (await this.invocations.listForRun(ctx.runId))
      .filter((call) => call.toolCallId !== null)
      .map((call) => ({
        tool_call_id: call.toolCallId,
        tool_name: call.toolName,
        evidence_status: call.evidenceStatus,
      }));
    const input = { draft: answer, violations, available_tool_calls: calls };
    const reply = await this.gateway.invoke(ctx, {
      role: 'evidence-repair',
      messages: [new HumanMessage(JSON.stringify(input))],
    });
    return textOf(reply.content);
  }
}

const storeCode = (result: GuardedDraft): Record<string, string> => {
  if (result.ok || !result.storeUnavailable) return {};
  return { error_code: result.storeLost ? STORE_LOST : STORE_UNAVAILABLE };
};
