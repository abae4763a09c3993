import {
  ALERT_DEDUP_REASONS,
  ALERT_STATUSES,
  CANCEL_CAUSES,
  CancelCause,
  DONE_OUTCOMES,
  FAILURE_CODES,
  FailureCode,
  FALLBACK_TYPES,
  FallbackType,
  INTENTS,
  MODEL_ROLES,
  NOTIFICATION_FAILURES,
  NOTIFICATION_KINDS,
} from '@app/contracts';

/** The label value a run has before routing decided its intent (it failed or was cancelled first). */
export const UNROUTED = 'UNROUTED';
/** What a value outside a label's closed set is counted as (a warning names the metric and label). */
export const OTHER = 'OTHER';

export const RUN_INTENT_LABELS = [...INTENTS, UNROUTED] as const;
/** A run's terminal state: the chat stream's done outcomes, and CANCELLED when the client left. */
export const RUN_OUTCOMES = [...DONE_OUTCOMES, 'CANCELLED'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/**
 * How a run ended, as its client heard it: a released answer, the fallback of a contract type, a failure
 * of a contract code, or the client gone. Each outcome has its own reasons, so a pair that cannot happen
 * does not compile.
 */
export type RunEnd =
  | { outcome: 'SUCCESS'; reason: 'NONE' }
  | { outcome: 'FALLBACK'; reason: FallbackType }
  | { outcome: 'FAILED'; reason: FailureCode }
  | { outcome: 'CANCELLED'; reason: CancelCause };
export type RunEndReason = RunEnd['reason'];

/** Every (outcome, reason) pair a run can end with: the series of superbiz_runs_finished_total. */
export const RUN_ENDS: readonly RunEnd[] = [
  { outcome: 'SUCCESS', reason: 'NONE' },
  ...FALLBACK_TYPES.map((reason) => ({ outcome: 'FALLBACK' as const, reason })),
  ...FAILURE_CODES.map((reason) => ({ outcome: 'FAILED' as const, reason })),
  ...CANCEL_CAUSES.map((reason) => ({ outcome: 'CANCELLED' as const, reason })),
];

/** The timeline phases that take time; RUN, RELEASE and BUDGET are instants. */
export const RUN_PHASES = ['ROUTING', 'AGENT', 'TOOL', 'EVIDENCE', 'SEMANTIC'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];

export const TOKEN_KINDS = ['prompt', 'completion'] as const;

/** Why a chat request got no run slot: every slot and queue place taken (503), or the key's share (429). */
export const CAPACITY_REJECTIONS = ['AT_CAPACITY', 'KEY_SHARE_FULL', 'ALERT_QUEUE_FULL'] as const;
export type CapacityRejection = (typeof CAPACITY_REJECTIONS)[number];

/** A label whose values are declared at start-up by the lib that owns them (tools, model error codes). */
export interface DeclaredLabel {
  declaredBy: string;
}

export interface MetricDefinition {
  name: string;
  type: 'counter' | 'gauge' | 'histogram';
  help: string;
  /** Each label with its closed set of values, or where the set is declared. */
  labels: Readonly<Record<string, readonly string[] | DeclaredLabel>>;
  buckets?: readonly number[];
}

const TOOL_RESULTS: DeclaredLabel = {
  declaredBy:
    "EVIDENCE_FOUND, NO_EVIDENCE, a tool-boundary error code (TOOL_ERROR_CODES in libs/harness) or the tool's own failure codes (its `failureCodes`)",
};

/**
 * Every metric the service exports beside Node's process metrics: the one source of the facade
 * (ServiceMetrics) and of docs/metrics.md. Names follow Prometheus conventions (`superbiz_` prefix, base
 * units in the name, `_total` for counters); labels take values only from closed sets, never user text,
 * ids or model output.
 */
export const METRICS = {
  runsStarted: {
    name: 'superbiz_runs_started_total',
    type: 'counter',
    help: 'Runs started (chat requests that got a slot and a run row).',
    labels: {},
  },
  runsFinished: {
    name: 'superbiz_runs_finished_total',
    type: 'counter',
    help: 'Runs ended, by routed intent, terminal outcome and the reason the client heard (fallback type or failure code).',
    labels: {
      intent: RUN_INTENT_LABELS,
      outcome: RUN_OUTCOMES,
      reason: ['NONE', ...FALLBACK_TYPES, ...FAILURE_CODES, ...CANCEL_CAUSES],
    },
  },
  runDuration: {
    name: 'superbiz_run_duration_seconds',
    type: 'histogram',
    help: 'Wall time of a run, from its start to its stored terminal state.',
    labels: { intent: RUN_INTENT_LABELS, outcome: RUN_OUTCOMES },
    buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
  },
  phaseDuration: {
    name: 'superbiz_run_phase_duration_seconds',
    type: 'histogram',
    help: "Wall time of one phase of a run: from the start of the phase's first model or tool call (or its first event) to its last event. TOOL lies inside AGENT.",
    labels: { phase: RUN_PHASES },
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120],
  },
  modelCalls: {
    name: 'superbiz_model_calls_total',
    type: 'counter',
    help: 'Model calls (each attempt), by role and result: OK or the recorded error code.',
    labels: {
      role: MODEL_ROLES,
      result: { declaredBy: 'OK, or a Harness failure code (HARNESS_FAILURE_CODES in libs/harness)' },
    },
  },
  modelTokens: {
    name: 'superbiz_model_tokens_total',
    type: 'counter',
    help: "Tokens of successful model calls, by role and kind (prompt = input, completion = output); the provider's counts, or the Harness estimate when it sent none.",
    labels: { role: MODEL_ROLES, kind: TOKEN_KINDS },
  },
  modelCallDuration: {
    name: 'superbiz_model_call_duration_seconds',
    type: 'histogram',
    help: 'Wall time of one model call (one attempt), by role.',
    labels: { role: MODEL_ROLES },
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120],
  },
  toolCalls: {
    name: 'superbiz_tool_calls_total',
    type: 'counter',
    help: 'Evidence tool calls, by tool and result: the evidence status of a READY result, or the error code.',
    labels: {
      tool: { declaredBy: 'the tool catalog: the built-in tools and each configured MCP tool' },
      result: TOOL_RESULTS,
    },
  },
  toolCallDuration: {
    name: 'superbiz_tool_call_duration_seconds',
    type: 'histogram',
    help: 'Wall time of one evidence tool call, by tool.',
    labels: { tool: { declaredBy: 'the tool catalog' } },
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
  },
  capacityRunning: {
    name: 'superbiz_capacity_runs_running',
    type: 'gauge',
    help: 'Runs holding a slot now (CHAT_MAX_IN_FLIGHT bounds it).',
    labels: {},
  },
  capacityQueued: {
    name: 'superbiz_capacity_runs_queued',
    type: 'gauge',
    help: 'Requests waiting for a slot now (CHAT_MAX_QUEUE bounds it).',
    labels: {},
  },
  capacityRejections: {
    name: 'superbiz_capacity_rejections_total',
    type: 'counter',
    help: 'Chat requests refused a slot: AT_CAPACITY answered 503, KEY_SHARE_FULL answered 429.',
    labels: { reason: CAPACITY_REJECTIONS },
  },
  alertGroupsReceived: {
    name: 'superbiz_alert_groups_received_total',
    type: 'counter',
    help: 'Alertmanager notifications (one alert group each) accepted, by the group status.',
    labels: { status: ALERT_STATUSES },
  },
  alertGroupsDeduplicated: {
    name: 'superbiz_alert_groups_deduplicated_total',
    type: 'counter',
    help: 'Firing alert groups that started no investigation because one was running, ran within the window or ran for the same alerts.',
    labels: { reason: ALERT_DEDUP_REASONS },
  },
  alertInvestigationsStarted: {
    name: 'superbiz_alert_investigations_started_total',
    type: 'counter',
    help: 'Investigations (runs) started by an alert group.',
    labels: {},
  },
  alertInvestigationsCapped: {
    name: 'superbiz_alert_investigations_capped_total',
    type: 'counter',
    help: 'Firing alert groups that started no investigation because the hourly cap was reached.',
    labels: {},
  },
  notificationsDelivered: {
    name: 'superbiz_notifications_delivered_total',
    type: 'counter',
    help: 'Run results delivered to a notification target, by target kind.',
    labels: { target_kind: NOTIFICATION_KINDS },
  },
  notificationsFailed: {
    name: 'superbiz_notifications_failed_total',
    type: 'counter',
    help: 'Run results not delivered after the bounded retries, by target kind and reason.',
    labels: { target_kind: NOTIFICATION_KINDS, reason: NOTIFICATION_FAILURES },
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricKey = keyof typeof METRICS;
