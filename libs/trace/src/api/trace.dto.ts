import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import {
  ALERT_OUTCOMES,
  NOTIFICATION_FAILURES,
  NOTIFICATION_KINDS,
  NOTIFICATION_STATUSES,
  NOTIFICATION_TRIGGERS,
  SESSION_ORIGINS,
} from '@app/contracts';
import type {
  AlertNotificationView,
  AlertOutcome,
  SessionAlertView,
  SessionOrigin,
  BudgetTotals,
  ModelStep,
  NotificationDeliveryView,
  ReasoningStep,
  RunReasoning,
  RunSummary,
  RunTrace,
  SessionRuns,
  SessionView,
  TimelineEvent,
  ToolInvocationView,
} from '@app/contracts';
import { INTENTS } from '@app/contracts';
import { CONTENT_SOURCES } from '../entities/agent-reasoning-audit.entity';
import { RUN_STATUSES } from '../entities/diagnosis-run.entity';
import { TIMELINE_EVENTS, TIMELINE_PHASES } from '../repositories/run-journal';

const NULLABLE_INT = { type: Number, nullable: true } as const;
const NULLABLE_STRING = { type: String, nullable: true } as const;
const DATE_TIME = { type: String, format: 'date-time' } as const;
const NULLABLE_DATE_TIME = { ...DATE_TIME, nullable: true } as const;
const SCALAR_MAP: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
};
/** Timeline details: a scalar map whose values may be null too (e.g. a budget limit not reached). */
const NULLABLE_SCALAR_MAP: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  additionalProperties: {
    oneOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }],
  },
};
/**
 * A nullable enum lists null among its values: in OpenAPI 3.0 `nullable` does not widen `enum`, so a
 * validator would refuse the null the service sends.
 */
export const nullableEnum = (values: readonly string[]): ApiPropertyOptions => ({
  type: String,
  nullable: true,
  enum: [...values, null],
});

export class BudgetTotalsDto implements BudgetTotals {
  @ApiProperty() model_calls!: number;
  @ApiProperty() tool_calls!: number;
  @ApiProperty() input_tokens!: number;
  @ApiProperty() output_tokens!: number;
  @ApiProperty() total_tokens!: number;
  @ApiProperty({ ...NULLABLE_STRING, description: 'The first budget limit the run hit' })
  exhausted!: string | null;
}

export class RunSummaryDto implements RunSummary {
  @ApiProperty() run_id!: string;
  @ApiProperty() query!: string;
  @ApiProperty(nullableEnum(INTENTS)) intent!: string | null;
  @ApiProperty({ enum: RUN_STATUSES }) status!: string;
  @ApiProperty(nullableEnum(RUN_STATUSES)) release_outcome!: string | null;
  @ApiProperty(NULLABLE_STRING) conclusion!: string | null;
  @ApiProperty(NULLABLE_STRING) fallback_reason!: string | null;
  @ApiProperty(NULLABLE_STRING) error_code!: string | null;
  @ApiProperty({ type: BudgetTotalsDto }) budget!: BudgetTotalsDto;
  @ApiProperty(DATE_TIME) created_at!: string;
  @ApiProperty(NULLABLE_DATE_TIME) ended_at!: string | null;
  @ApiProperty(NULLABLE_INT) duration_ms!: number | null;
}

export class AlertNotificationViewDto implements AlertNotificationView {
  @ApiProperty(DATE_TIME) received_at!: string;
  @ApiProperty({ enum: ['firing', 'resolved'] }) status!: string;
  @ApiProperty({ enum: ALERT_OUTCOMES }) outcome!: AlertOutcome;
  @ApiProperty(NULLABLE_STRING) run_id!: string | null;
  @ApiProperty() alert_count!: number;
}

export const ALERT_LABELS_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'The alert group’s common labels, as sent (untrusted text, shown as data)',
};

export class SessionAlertViewDto implements SessionAlertView {
  @ApiProperty(ALERT_LABELS_SCHEMA) labels!: Record<string, string>;
  @ApiProperty({
    type: [AlertNotificationViewDto],
    description: 'The latest notifications of the group (at most 50), newest first',
  })
  notifications!: AlertNotificationViewDto[];
}

export class SessionViewDto implements SessionView {
  @ApiProperty() session_id!: string;
  @ApiProperty(DATE_TIME) created_at!: string;
  @ApiProperty(DATE_TIME) updated_at!: string;
  @ApiProperty({ enum: SESSION_ORIGINS }) origin!: SessionOrigin;
  @ApiPropertyOptional({
    type: SessionAlertViewDto,
    description: 'Present only for an alert group’s session',
  })
  alert?: SessionAlertViewDto;
}

export class ModelStepDto implements ModelStep {
  @ApiProperty() step_index!: number;
  @ApiProperty() role!: string;
  @ApiProperty() attempt!: number;
  @ApiProperty({ enum: ['OK', 'ERROR'] }) status!: string;
  @ApiProperty(NULLABLE_STRING) error_code!: string | null;
  @ApiProperty(NULLABLE_STRING) finish_reason!: string | null;
  @ApiProperty() tool_call_count!: number;
  @ApiProperty(NULLABLE_INT) input_tokens!: number | null;
  @ApiProperty(NULLABLE_INT) output_tokens!: number | null;
  @ApiProperty(NULLABLE_INT) total_tokens!: number | null;
  @ApiProperty(DATE_TIME) started_at!: string;
  @ApiProperty(NULLABLE_INT) duration_ms!: number | null;
}

export class ToolInvocationDto implements ToolInvocationView {
  @ApiProperty(NULLABLE_STRING) tool_call_id!: string | null;
  @ApiProperty() tool_name!: string;
  @ApiProperty() status!: string;
  @ApiProperty(NULLABLE_STRING) evidence_status!: string | null;
  @ApiProperty(NULLABLE_STRING) error_code!: string | null;
  @ApiProperty(SCALAR_MAP) arg_summary!: Record<string, string | number | boolean> | null;
  @ApiProperty(NULLABLE_INT) request_bytes!: number | null;
  @ApiProperty(NULLABLE_INT) raw_bytes!: number | null;
  @ApiProperty(NULLABLE_INT) agent_result_bytes!: number | null;
  @ApiProperty() truncated!: boolean;
  @ApiProperty(DATE_TIME) started_at!: string;
  @ApiProperty(NULLABLE_INT) duration_ms!: number | null;
}

export class TimelineEventDto implements TimelineEvent {
  @ApiProperty({ enum: TIMELINE_PHASES }) phase!: string;
  @ApiProperty({ enum: [...new Set(Object.values(TIMELINE_EVENTS).flat())] }) event_type!: string;
  @ApiProperty(NULLABLE_SCALAR_MAP) details!: Record<string, string | number | boolean | null> | null;
  @ApiProperty(DATE_TIME) at!: string;
}

/** One (run, target) notification delivery; never the target's URL or secrets. */
export class NotificationDeliveryDto implements NotificationDeliveryView {
  @ApiProperty({ description: 'The target’s name in NOTIFY_TARGETS_FILE' }) target!: string;
  @ApiProperty({ enum: NOTIFICATION_KINDS }) kind!: string;
  @ApiProperty({ enum: NOTIFICATION_TRIGGERS }) trigger!: string;
  @ApiProperty({ enum: NOTIFICATION_STATUSES }) status!: string;
  @ApiProperty(nullableEnum(NOTIFICATION_FAILURES)) failure!: string | null;
  @ApiProperty({ description: 'HTTP requests made' }) attempts!: number;
  @ApiProperty(NULLABLE_INT) last_http_status!: number | null;
  @ApiProperty({ ...NULLABLE_INT, description: 'The vendor’s error code from a 200 answer’s body' })
  vendor_code!: number | null;
  @ApiProperty(DATE_TIME) created_at!: string;
  @ApiProperty(DATE_TIME) updated_at!: string;
}

/** Without runId: the session's runs, newest first, one keyset page. */
export class SessionRunsDto implements SessionRuns {
  @ApiProperty({ type: SessionViewDto }) session!: SessionViewDto;
  @ApiProperty({ type: [RunSummaryDto] }) runs!: RunSummaryDto[];
  @ApiProperty() limit!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Pass as `cursor` for the next (older) page; null on the last page',
  })
  next_cursor!: string | null;
}

/** With runId: one run's bounded trace. */
export class RunTraceDto implements RunTrace {
  @ApiProperty({ type: SessionViewDto }) session!: SessionViewDto;
  @ApiProperty({ type: RunSummaryDto }) run!: RunSummaryDto;
  @ApiProperty({ type: [ModelStepDto] }) steps!: ModelStepDto[];
  @ApiProperty({ type: [ToolInvocationDto] }) tool_invocations!: ToolInvocationDto[];
  @ApiProperty({ type: [TimelineEventDto] }) timeline!: TimelineEventDto[];
  @ApiProperty({ type: [NotificationDeliveryDto] }) notifications!: NotificationDeliveryDto[];
}

export class ReasoningStepDto implements ReasoningStep {
  @ApiProperty() step_index!: number;
  @ApiProperty() role!: string;
  @ApiProperty({
    enum: [...CONTENT_SOURCES, 'UNDECRYPTABLE'],
    description:
      'UNDECRYPTABLE: the stored text did not open for this run, step, column, role and content source (moved, relabelled or altered, or its key is gone); both texts are null',
  })
  content_source!: string;
  @ApiProperty(NULLABLE_STRING) reasoning_content!: string | null;
  @ApiProperty(NULLABLE_STRING) assistant_text!: string | null;
}

export class RunReasoningDto implements RunReasoning {
  @ApiProperty() session_id!: string;
  @ApiProperty() run_id!: string;
  @ApiProperty({ type: [ReasoningStepDto] }) steps!: ReasoningStepDto[];
}
