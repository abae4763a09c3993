import { BadRequestException, Controller, Get, NotFoundException, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiExtraModels,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { ApiCaller, ApiErrorDto, Caller, RequireApiKey } from '@app/auth';
import { DiagnosisRunEntity } from '../entities/diagnosis-run.entity';
import { AgentStepRepository } from '../repositories/agent-step.repository';
import { NotificationDeliveryRepository } from '../repositories/notification-delivery.repository';
import { RunRepository } from '../repositories/run.repository';
import { AlertGroupRepository } from '../repositories/alert-group.repository';
import { TimelineRepository } from '../repositories/timeline.repository';
import { ToolInvocationRepository } from '../repositories/tool-invocation.repository';
import { BAD_CURSOR, decodeRunCursor, encodeRunCursor } from './page-cursor';
import { ReasoningQueryDto, TraceQueryDto } from './trace-query.dto';
import {
  RunReasoningDto,
  RunSummaryDto,
  RunTraceDto,
  SessionAlertViewDto,
  SessionRunsDto,
} from './trace.dto';

const iso = (date: Date) => date.toISOString();
/** The alert notifications a session's trace shows, newest first. */
const ALERT_NOTIFICATIONS_SHOWN = 50;
const isoOrNull = (date: Date | null) => (date ? iso(date) : null);

function runSummary(run: DiagnosisRunEntity): RunSummaryDto {
  return {
    run_id: run.runId,
    query: run.query,
    intent: run.intent,
    status: run.status,
    release_outcome: run.releaseOutcome,
    conclusion: run.conclusion,
    fallback_reason: run.fallbackReason,
    error_code: run.errorCode,
    budget: {
      model_calls: run.modelCalls,
      tool_calls: run.toolCalls,
      input_tokens: run.inputTokens,
      output_tokens: run.outputTokens,
      total_tokens: run.totalTokens,
      exhausted: run.budgetExhaustedReason,
    },
    created_at: iso(run.createdAt),
    ended_at: isoOrNull(run.endedAt),
    duration_ms: run.durationMs,
  };
}

/**
 * Trace (trace_reader, or auditor for any session) and reasoning audit (auditor) of a session's runs. The trace is bounded metadata
 * only — no reasoning or assistant text, raw tool payloads, SQL or log bodies; those stay in the
 * restricted audit endpoint and in Redis. A run of another session is reported as not found, and so is
 * a session of another API key unless the caller is also an auditor.
 */
@ApiTags('trace')
@ApiExtraModels(SessionRunsDto, RunTraceDto)
@ApiBadRequestResponse({ type: ApiErrorDto, description: 'Invalid runId, limit or cursor' })
@ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such session or run (or not the caller’s)' })
@Controller('api/diagnosis/:sessionId/trace')
export class TraceController {
  constructor(
    private readonly runs: RunRepository,
    private readonly steps: AgentStepRepository,
    private readonly invocations: ToolInvocationRepository,
    private readonly timeline: TimelineRepository,
    private readonly notifications: NotificationDeliveryRepository,
    private readonly alertGroups: AlertGroupRepository,
  ) {}

  private async alertView(
    sessionId: string,
    labels: Record<string, string> | null,
  ): Promise<SessionAlertViewDto> {
    const notifications = await this.alertGroups.listNotifications(sessionId, ALERT_NOTIFICATIONS_SHOWN);
    return {
      labels: labels ?? {},
      notifications: notifications.map((row) => ({
        received_at: iso(row.receivedAt),
        status: row.status,
        outcome: row.outcome,
        run_id: row.runId,
        alert_count: row.alertCount,
      })),
    };
  }

  @Get()
  // An auditor reads every session's trace (docs/architecture.md, docs/security-model.md "Access control"), with or
  // without trace_reader.
  @RequireApiKey('trace_reader', 'auditor')
  @ApiOperation({
    summary: 'One run’s trace (runId), or the session’s runs newest first, a page at a time (cursor)',
  })
  @ApiOkResponse({
    description: 'With runId: RunTraceDto; without: SessionRunsDto',
    schema: { oneOf: [{ $ref: getSchemaPath(RunTraceDto) }, { $ref: getSchemaPath(SessionRunsDto) }] },
  })
  async trace(
    @Param('sessionId') sessionId: string,
    @Query() query: TraceQueryDto,
    @Caller() caller: ApiCaller,
  ): Promise<RunTraceDto | SessionRunsDto> {
    const session = await this.runs.findSession(sessionId);
    if (
      !session ||
      !(
        session.ownerKeyDigest === caller.keyDigest ||
        caller.roles.includes('auditor') ||
        // An alert group's session belongs to no key: every trace_reader reads it (docs/alerts.md).
        session.origin === 'ALERT'
      )
    ) {
      notFound('session');
    }
    const sessionView = {
      session_id: session.sessionId,
      created_at: iso(session.createdAt),
      updated_at: iso(session.updatedAt),
      origin: session.origin,
      ...(session.origin === 'ALERT'
        ? { alert: await this.alertView(session.sessionId, session.alertLabels) }
        : {}),
    };
    if (!query.runId) {
      const limit = query.limit ?? 20;
      const after = query.cursor === undefined ? null : decodeRunCursor(query.cursor);
      if (query.cursor !== undefined && after === null) throw new BadRequestException(BAD_CURSOR);
      const { runs, next } = await this.runs.listSessionRuns(sessionId, limit, after);
      return {
        session: sessionView,
        runs: runs.map(runSummary),
        limit,
        next_cursor: next ? encodeRunCursor(next) : null,
      };
    }
    const run = await this.runOf(sessionId, query.runId);
    const [steps, invocations, events, deliveries] = await Promise.all([
      this.steps.listSteps(run.runId),
      this.invocations.listForRun(run.runId),
      this.timeline.listForRun(run.runId),
      this.notifications.listForRun(run.runId),
    ]);
    return {
      session: sessionView,
      run: runSummary(run),
      steps: steps.map((step) => ({
        step_index: step.stepIndex,
        role: step.role,
        attempt: step.attempt,
        status: step.status,
        error_code: step.errorCode,
        finish_reason: step.finishReason,
        tool_call_count: step.toolCallCount,
        input_tokens: step.inputTokens,
        output_tokens: step.outputTokens,
        total_tokens: step.totalTokens,
        started_at: iso(step.startedAt),
        duration_ms: step.durationMs,
      })),
      tool_invocations: invocations.map((call) => ({
        tool_call_id: call.toolCallId,
        tool_name: call.toolName,
        status: call.status,
        evidence_status: call.evidenceStatus,
        error_code: call.errorCode,
        arg_summary: call.argSummary,
        request_bytes: call.requestBytes,
        raw_bytes: call.rawBytes,
        agent_result_bytes: call.agentResultBytes,
        truncated: call.truncated,
        started_at: iso(call.startedAt),
        duration_ms: call.durationMs,
      })),
      timeline: events.map((event) => ({
        phase: event.phase,
        event_type: event.eventType,
        details: event.details,
        at: iso(event.createdAt),
      })),
      notifications: deliveries.map((delivery) => ({
        target: delivery.targetName,
        kind: delivery.targetKind,
        trigger: delivery.trigger,
        status: delivery.status,
        failure: delivery.failure,
        attempts: delivery.attempts,
        last_http_status: delivery.lastHttpStatus,
        vendor_code: delivery.vendorCode,
        created_at: iso(delivery.createdAt),
        updated_at: iso(delivery.updatedAt),
      })),
    };
  }

  @Get('reasoning')
  @RequireApiKey('auditor')
  @ApiOperation({
    summary:
      'Restricted: per model step, the provider reasoning and assistant text, or the explicit UNAVAILABLE marker',
  })
  @ApiOkResponse({ type: RunReasoningDto })
  async reasoning(
    @Param('sessionId') sessionId: string,
    @Query() query: ReasoningQueryDto,
  ): Promise<RunReasoningDto> {
    const run = await this.runOf(sessionId, query.runId);
    const rows = await this.steps.listReasoning(run.runId);
    return {
      session_id: sessionId,
      run_id: run.runId,
      steps: rows.map((row) => ({
        step_index: row.stepIndex,
        role: row.role,
        content_source: row.contentSource,
        reasoning_content: row.reasoningContent,
        assistant_text: row.assistantText,
      })),
    };
  }

  private async runOf(sessionId: string, runId: string): Promise<DiagnosisRunEntity> {
    const run = await this.runs.findRun(runId);
    return run && run.sessionId === sessionId ? run : notFound('run');
  }
}

function notFound(what: 'session' | 'run'): never {
  throw new NotFoundException(`${what} not found`);
}
