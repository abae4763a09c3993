import { Inject, Injectable } from '@nestjs/common';
import { harnessConfig, HarnessConfig } from '../config/harness.config';
import { AgentResult, CanonicalInvocation } from '../evidence/canonical-invocation';
import { EvidenceStoreUnavailable, InvocationStore, StoreOutcome } from '../evidence/invocation-store';
import { BudgetAudit } from '../run/budget-audit';
import { runStopOf } from '../retry/failure-classification';
import { BudgetExhausted, RunDeadlineExceeded } from '../run/harness-errors';
import { RunContext } from '../run/run-context';
import { byteLength, fitAgentResult } from './fit-agent-result';
import { ArgSummary, HarnessToolDefinition, ToolFailure } from './harness-tool-definition';
import { isValidToolCallId } from './tool-call-id';

/** Stable, safe Tool ERROR codes the agent (and the trace) may see. */
export const TOOL_ERROR_CODES = [
  'INVALID_TOOL_CALL_ID',
  'DUPLICATE_TOOL_CALL_ID',
  'INVALID_ARGUMENTS',
  'TOOL_NOT_READ_ONLY',
  'BUDGET_EXHAUSTED',
  'TOOL_TIMEOUT',
  'TOOL_FAILED',
  'PROJECTION_FAILED',
  'RESULT_TOO_LARGE',
  'RUN_EVIDENCE_LIMIT',
  'EVIDENCE_STORE_UNAVAILABLE',
  'CANCELLED',
  'DEADLINE_EXCEEDED',
  'UNKNOWN_TOOL',
] as const;

export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

/** The safe observation for each boundary code; codes whose message depends on the call pass their own. */
function safeMessageOf(code: ToolErrorCode): string {
  switch (code) {
    case 'INVALID_TOOL_CALL_ID':
      return 'The tool call id is missing or malformed; the call was not run.';
    case 'DUPLICATE_TOOL_CALL_ID':
      return 'This tool call id was already used in this run; the call was not run.';
    case 'INVALID_ARGUMENTS':
      return 'Invalid arguments.';
    case 'TOOL_NOT_READ_ONLY':
      return 'This tool is not allowed to run.';
    case 'BUDGET_EXHAUSTED':
      return 'The tool call budget of this run is used up; conclude with the evidence you have.';
    case 'TOOL_TIMEOUT':
      return 'The tool did not answer in time.';
    case 'TOOL_FAILED':
      return 'The tool failed.';
    case 'PROJECTION_FAILED':
      return 'The tool result could not be prepared.';
    case 'RESULT_TOO_LARGE':
      return 'The tool result is too large; narrow the query.';
    case 'RUN_EVIDENCE_LIMIT':
      return 'This run has stored as much evidence as it may; conclude with the evidence you have.';
    case 'EVIDENCE_STORE_UNAVAILABLE':
      return 'The evidence store is unavailable; this result cannot be used as evidence.';
    case 'CANCELLED':
      return 'The run was cancelled.';
    case 'DEADLINE_EXCEEDED':
      return 'The run ran out of time.';
    case 'UNKNOWN_TOOL':
      return 'There is no such tool.';
  }
}

/** What each refused store write means for the call; closed over StoreOutcome. */
const STORE_REJECTIONS = {
  DUPLICATE: 'DUPLICATE_TOOL_CALL_ID',
  RECORD_TOO_LARGE: 'RESULT_TOO_LARGE',
  RUN_LIMIT: 'RUN_EVIDENCE_LIMIT',
  // The record vanished (expired or flushed) between writes: it can no longer be evidence.
  MISSING: 'EVIDENCE_STORE_UNAVAILABLE',
} as const satisfies Record<Exclude<StoreOutcome, 'OK'>, ToolErrorCode>;

const MALFORMED_ARGUMENTS_MESSAGE =
  'The arguments are not a valid JSON object; the call was not run. Send a JSON object that matches the tool schema.';

/** What the agent gets back, always a bounded JSON string, plus whether it is an error observation. */
export interface BoundaryResult {
  content: string;
  isError: boolean;
  agentResult: AgentResult;
}

/** A boundary code, or a tool's own ToolFailure code (e.g. an SQL policy rejection) with its safe message. */
class Rejection {
  readonly message: string;

  constructor(code: ToolErrorCode, message?: string);
  constructor(code: string, message: string);
  constructor(
    readonly code: string,
    message?: string,
  ) {
    this.message = message ?? safeMessageOf(code as ToolErrorCode);
  }
}

/**
 * The Harness tool boundary (docs/architecture.md "Tool call identity"): validates the framework's tool_call_id and
 * the arguments, enforces read-only and budget, stores the canonical invocation in Redis
 * (PROJECTING -> READY | ERROR), runs the projector, and returns only the bounded agent_result.
 * Tool errors become observations; only cancellation and the deadline end the run from here.
 */
@Injectable()
export class ToolBoundary {
  constructor(
    private readonly store: InvocationStore,
    private readonly budgetAudit: BudgetAudit,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
  ) {}

  /**
   * One tool call, in named stages: open the canonical record, check the call, run the tool, keep the raw
   * response, project it, mark it READY. Each stage either moves on or ends the call as an ERROR record.
   */
  execute<Args extends Record<string, unknown>, Raw>(
    ctx: RunContext,
    tool: HarnessToolDefinition<Args, Raw>,
    toolCallId: unknown,
    rawArgs: unknown,
  ): Promise<BoundaryResult> {
    return ctx.track(this.executeCall(ctx, tool, toolCallId, rawArgs));
  }

  private async executeCall<Args extends Record<string, unknown>, Raw>(
    ctx: RunContext,
    tool: HarnessToolDefinition<Args, Raw>,
    toolCallId: unknown,
    rawArgs: unknown,
  ): Promise<BoundaryResult> {
    await ctx.paced();
    const opened = await this.openRecord(ctx, tool.name, toolCallId, rawArgs);
    if (!(opened instanceof OpenCall)) return opened;
    const call = opened;

    const args = await this.checkCall(call, tool, rawArgs);
    if (args instanceof Rejection) return this.finishWithError(call, args);

    const raw = await this.runTool(call, tool, args);
    if (raw instanceof Rejection) return this.finishWithError(call, raw);

    const rawStored = await this.keepRaw(call, raw);
    if (rawStored instanceof Rejection) return this.finishWithError(call, rawStored);

    const projected = this.projectResult(call, tool, raw, args);
    if (projected instanceof Rejection) return this.finishWithError(call, projected, true);

    return this.markReady(call, projected);
  }

  /** Checks the tool_call_id and creates the PROJECTING record; a refused create writes nothing. */
  private async openRecord(
    ctx: RunContext,
    toolName: string,
    toolCallId: unknown,
    rawArgs: unknown,
  ): Promise<OpenCall | BoundaryResult> {
    const startedAt = new Date();
    const requestBytes = safeByteLength(rawArgs);
    this.started(ctx, toolName, toolCallId);
    if (!isValidToolCallId(toolCallId)) {
      ctx.budget.countRejectedToolCall();
      const rejection = new Rejection('INVALID_TOOL_CALL_ID');
      this.audit(ctx, toolName, null, startedAt, { requestBytes, rejection });
      return errorResult(typeof toolCallId === 'string' ? toolCallId.slice(0, 128) : '', rejection);
    }
    const call = new OpenCall(ctx, toolName, toolCallId, startedAt, {
      tool_call_id: toolCallId,
      run_id: ctx.runId,
      tool_name: toolName,
      request: rawArgs,
      raw_response: null,
      agent_result: null,
      status: 'PROJECTING',
      evidence_status: null,
      error_code: null,
      started_at: startedAt.toISOString(),
      ended_at: null,
    });
    call.sizes.requestBytes = requestBytes;
    const created = await this.storeOrReject(() => this.store.create(call.record));
    if (created instanceof Rejection) {
      // A duplicate id never overwrites the existing record. Every refused create (duplicate, store
      // down, run limit) is a call the agent made: it counts, as its tool_invocation row does.
      ctx.budget.countRejectedToolCall();
      this.audit(ctx, toolName, toolCallId, startedAt, { ...call.sizes, rejection: created });
      return errorResult(toolCallId, created);
    }
    return call;
  }

  /** Read-only, argument validation, then the budget: nothing runs unless all three pass. */
  private async checkCall<Args extends Record<string, unknown>, Raw>(
    call: OpenCall,
    tool: HarnessToolDefinition<Args, Raw>,
    rawArgs: unknown,
  ): Promise<Args | Rejection> {
    if (tool.readOnly !== true) {
      call.ctx.budget.countRejectedToolCall();
      return new Rejection('TOOL_NOT_READ_ONLY');
    }
    const parsed = tool.schema.safeParse(rawArgs);
    if (!parsed.success) {
      call.ctx.budget.countRejectedToolCall();
      const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(arguments)'))];
      return new Rejection('INVALID_ARGUMENTS', `Invalid arguments: check ${fields.join(', ')}.`);
    }
    call.argSummary = tool.summarizeArgs(parsed.data);
    try {
      call.ctx.budget.reserveToolCall(tool.name);
    } catch (error) {
      if (!(error instanceof BudgetExhausted)) throw error;
      this.budgetAudit.record(call.ctx, error);
      return new Rejection('BUDGET_EXHAUSTED');
    }
    return parsed.data;
  }

  /** Tool failures become observations; cancellation and the deadline are recorded, then end the run. */
  private async runTool<Args extends Record<string, unknown>, Raw>(
    call: OpenCall,
    tool: HarnessToolDefinition<Args, Raw>,
    args: Args,
  ): Promise<Raw | Rejection> {
    try {
      return await this.run(call.ctx, tool, args);
    } catch (error) {
      const stop = runStopOf(error);
      if (stop) {
        await this.finishWithError(call, new Rejection(stop));
        throw error;
      }
      if (error instanceof ToolFailure) {
        if (tool.failureCodes.includes(error.code)) return new Rejection(error.code, error.safeMessage);
        call.ctx
          .logger(ToolBoundary.name)
          .warn(
            `tool ${tool.name} failed with a code it does not declare (${error.code}): recorded as TOOL_FAILED`,
          );
        return new Rejection('TOOL_FAILED');
      }
      if (error instanceof ToolTimeout) return new Rejection('TOOL_TIMEOUT');
      call.ctx
        .logger(ToolBoundary.name)
        .warn(`tool ${tool.name} failed: ${error instanceof Error ? error.name : 'unknown'}`);
      return new Rejection('TOOL_FAILED');
    }
  }

  private async keepRaw<Raw>(call: OpenCall, raw: Raw): Promise<StoreOutcome | Rejection> {
    call.record.raw_response = raw;
    call.sizes.rawBytes = safeByteLength(raw);
    return this.storeOrReject(() => this.store.update(call.record));
  }

  /** Deterministic projection, fitted to the agent-result byte cap; the raw response stays in Redis. */
  private projectResult<Args extends Record<string, unknown>, Raw>(
    call: OpenCall,
    tool: HarnessToolDefinition<Args, Raw>,
    raw: Raw,
    args: Args,
  ): AgentResult | Rejection {
    let projected: AgentResult | null;
    try {
      const projection = tool.project(raw, args);
      projected = fitAgentResult(
        {
          evidence_status: projection.evidenceStatus,
          tool_call_id: call.toolCallId,
          ...projection.result,
          truncated: projection.truncated,
        },
        this.config.evidence.maxAgentResultBytes,
        tool.countedList,
      );
    } catch {
      return new Rejection('PROJECTION_FAILED');
    }
    return projected ?? new Rejection('RESULT_TOO_LARGE');
  }

  private async markReady(call: OpenCall, projected: AgentResult): Promise<BoundaryResult> {
    const evidenceStatus = projected.evidence_status === 'NO_EVIDENCE' ? 'NO_EVIDENCE' : 'EVIDENCE_FOUND';
    call.sizes.agentResultBytes = byteLength(projected);
    call.sizes.truncated = projected.truncated;
    const ready: CanonicalInvocation = {
      ...call.record,
      agent_result: projected,
      status: 'READY',
      evidence_status: evidenceStatus,
      ended_at: new Date().toISOString(),
    };
    const readyStored = await this.storeOrReject(() => this.store.update(ready));
    if (readyStored instanceof Rejection) return this.finishWithError(call, readyStored);
    call.ctx.journal.toolInvocation({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      status: 'READY',
      evidenceStatus,
      errorCode: null,
      argSummary: call.argSummary,
      ...call.sizes,
      startedAt: call.startedAt,
      durationMs: Date.now() - call.startedAt.getTime(),
    });
    this.finished(call.ctx, call.toolName, call.toolCallId, 'READY', evidenceStatus, null, call.startedAt);
    return { content: JSON.stringify(projected), isError: false, agentResult: projected };
  }

  /** Ends an opened call as ERROR in Redis and in the run's journal; if even the Redis write fails, the store's code wins. */
  private async finishWithError(
    call: OpenCall,
    rejection: Rejection,
    keepRaw = false,
  ): Promise<BoundaryResult> {
    const failed = errorResult(call.toolCallId, rejection);
    const final: CanonicalInvocation = {
      ...call.record,
      raw_response: keepRaw ? call.record.raw_response : null,
      agent_result: failed.agentResult,
      status: 'ERROR',
      evidence_status: 'ERROR',
      error_code: rejection.code,
      ended_at: new Date().toISOString(),
    };
    const stored = await this.storeOrReject(() => this.store.update(final));
    const outcome = stored instanceof Rejection ? stored : rejection;
    this.audit(call.ctx, call.toolName, call.toolCallId, call.startedAt, {
      ...call.sizes,
      rejection: outcome,
      argSummary: call.argSummary,
    });
    return outcome === rejection ? failed : errorResult(call.toolCallId, outcome);
  }

  /**
   * A tool call naming no tool of this agent: nothing runs, but the call is still stored (ERROR /
   * UNKNOWN_TOOL) and audited like any other, and the model gets a safe observation.
   */
  async rejectUnknownTool(
    ctx: RunContext,
    toolName: string,
    toolCallId: unknown,
    rawArgs: unknown,
    knownTools: string[],
  ): Promise<BoundaryResult> {
    return this.refuse(
      ctx,
      toolName,
      toolCallId,
      rawArgs,
      new Rejection(
        'UNKNOWN_TOOL',
        `There is no tool named ${safeToolName(toolName)}; use one of ${knownTools.join(', ')}.`,
      ),
    );
  }

  /**
   * A tool call whose arguments the provider's parser could not read (LangChain's `invalid_tool_calls`):
   * nothing runs, the call is stored (ERROR / INVALID_ARGUMENTS, request = the raw argument text) and
   * audited like any other, and the model gets an observation it can correct itself from.
   */
  async rejectMalformedArguments(
    ctx: RunContext,
    toolName: string,
    toolCallId: unknown,
    rawArguments: string,
  ): Promise<BoundaryResult> {
    return this.refuse(
      ctx,
      toolName,
      toolCallId,
      rawArguments,
      new Rejection('INVALID_ARGUMENTS', MALFORMED_ARGUMENTS_MESSAGE),
    );
  }

  /** Stores and audits a call refused before anything ran; it still costs one call of the tool budget. */
  private refuse(
    ctx: RunContext,
    toolName: string,
    toolCallId: unknown,
    rawArgs: unknown,
    rejection: Rejection,
  ): Promise<BoundaryResult> {
    return ctx.track(this.refuseCall(ctx, toolName, toolCallId, rawArgs, rejection));
  }

  private async refuseCall(
    ctx: RunContext,
    toolName: string,
    toolCallId: unknown,
    rawArgs: unknown,
    rejection: Rejection,
  ): Promise<BoundaryResult> {
    ctx.throwIfStopped();
    const startedAt = new Date();
    const name = safeToolName(toolName);
    const requestBytes = safeByteLength(rawArgs);
    this.started(ctx, name, toolCallId);
    ctx.budget.countRejectedToolCall();
    if (!isValidToolCallId(toolCallId)) {
      const invalid = new Rejection('INVALID_TOOL_CALL_ID');
      this.audit(ctx, name, null, startedAt, { requestBytes, rejection: invalid });
      return errorResult(typeof toolCallId === 'string' ? toolCallId.slice(0, 128) : '', invalid);
    }
    const failed = errorResult(toolCallId, rejection);
    const stored = await this.storeOrReject(() =>
      this.store.create({
        tool_call_id: toolCallId,
        run_id: ctx.runId,
        tool_name: name,
        request: rawArgs,
        raw_response: null,
        agent_result: failed.agentResult,
        status: 'ERROR',
        evidence_status: 'ERROR',
        error_code: rejection.code,
        started_at: startedAt.toISOString(),
        ended_at: new Date().toISOString(),
      }),
    );
    const outcome = stored instanceof Rejection ? stored : rejection;
    this.audit(ctx, name, toolCallId, startedAt, { requestBytes, rejection: outcome });
    return outcome === rejection ? failed : errorResult(toolCallId, outcome);
  }

  /**
   * Runs the tool under the run's signal and a per-call timeout; a tool that ignores the signal is left
   * behind. When the run's deadline comes no later than the tool's own timeout, the timer is the
   * deadline's, so its firing means DEADLINE_EXCEEDED whichever of the two timers the event loop serves
   * first. Everything attached to the run's long-lived signal is detached when the call ends: a listener
   * left there would keep the call (and through it the whole agent graph) alive until the run ends.
   */
  private async run<Args extends Record<string, unknown>, Raw>(
    ctx: RunContext,
    tool: HarnessToolDefinition<Args, Raw>,
    args: Args,
  ): Promise<Raw> {
    const remainingMs = ctx.remainingMs();
    const toolTimeoutMs = this.config.agent.toolCallTimeoutMs;
    const deadlineFirst = remainingMs <= toolTimeoutMs;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let onRunStop: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      const stop = (reason: unknown) => {
        controller.abort(reason);
        reject(reason);
      };
      onRunStop = () => stop(ctx.signal.reason);
      if (ctx.signal.aborted) return onRunStop();
      ctx.signal.addEventListener('abort', onRunStop, { once: true });
      timer = setTimeout(
        () => stop(deadlineFirst ? new RunDeadlineExceeded() : new ToolTimeout()),
        Math.max(1, Math.min(toolTimeoutMs, remainingMs)),
      );
    });
    stopped.catch(() => undefined);
    try {
      return await Promise.race([tool.execute(args, controller.signal, ctx), stopped]);
    } finally {
      clearTimeout(timer);
      if (onRunStop) ctx.signal.removeEventListener('abort', onRunStop);
    }
  }

  private async storeOrReject(write: () => Promise<StoreOutcome>): Promise<StoreOutcome | Rejection> {
    let outcome: StoreOutcome;
    try {
      outcome = await write();
    } catch (error) {
      if (error instanceof EvidenceStoreUnavailable) return new Rejection('EVIDENCE_STORE_UNAVAILABLE');
      throw error;
    }
    return outcome === 'OK' ? outcome : new Rejection(STORE_REJECTIONS[outcome]);
  }

  private audit(
    ctx: RunContext,
    toolName: string,
    toolCallId: string | null,
    startedAt: Date,
    details: {
      requestBytes: number;
      rawBytes?: number;
      agentResultBytes?: number;
      truncated?: boolean;
      rejection: Rejection;
      argSummary?: ArgSummary | null;
    },
  ): void {
    ctx.journal.toolInvocation({
      toolCallId,
      toolName,
      status: 'ERROR',
      evidenceStatus: 'ERROR',
      errorCode: details.rejection.code,
      argSummary: details.argSummary ?? null,
      requestBytes: details.requestBytes,
      rawBytes: details.rawBytes ?? 0,
      agentResultBytes: details.agentResultBytes ?? 0,
      truncated: details.truncated ?? false,
      startedAt,
      durationMs: Date.now() - startedAt.getTime(),
    });
    this.finished(ctx, toolName, toolCallId, 'ERROR', 'ERROR', details.rejection.code, startedAt);
  }

  /** Timeline: the call began — name and id only, never arguments or payload. */
  private started(ctx: RunContext, toolName: string, toolCallId: unknown): void {
    ctx.journal.event('TOOL', 'TOOL_STARTED', {
      tool: toolName,
      tool_call_id: isValidToolCallId(toolCallId) ? toolCallId : null,
    });
  }

  /** Timeline: how the call ended — status, evidence status and error code, never the payload. */
  private finished(
    ctx: RunContext,
    toolName: string,
    toolCallId: string | null,
    status: 'READY' | 'ERROR',
    evidenceStatus: string,
    errorCode: string | null,
    startedAt: Date,
  ): void {
    ctx.journal.event('TOOL', 'TOOL_FINISHED', {
      tool: toolName,
      tool_call_id: toolCallId,
      status,
      evidence_status: evidenceStatus,
      error_code: errorCode,
      duration_ms: Date.now() - startedAt.getTime(),
    });
  }
}

const safeToolName = (name: string) => name.replace(/[^\w.-]/g, '_').slice(0, 64) || 'unknown';

class ToolTimeout extends Error {}

/** The state of one tool call between the boundary's stages. */
class OpenCall {
  readonly sizes = { requestBytes: 0, rawBytes: 0, agentResultBytes: 0, truncated: false };
  argSummary: ArgSummary | null = null;

  constructor(
    readonly ctx: RunContext,
    readonly toolName: string,
    readonly toolCallId: string,
    readonly startedAt: Date,
    readonly record: CanonicalInvocation,
  ) {}
}

function errorResult(toolCallId: string, rejection: Rejection): BoundaryResult {
  const agentResult: AgentResult = {
    evidence_status: 'ERROR',
    tool_call_id: toolCallId,
    error_code: rejection.code,
    message: rejection.message,
    truncated: false,
  };
  return { content: JSON.stringify(agentResult), isError: true, agentResult };
}

function safeByteLength(value: unknown): number {
  try {
    return byteLength(value ?? null);
  } catch {
    return 0;
  }
}
