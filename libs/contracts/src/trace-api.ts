// `GET /api/diagnosis/:sessionId/trace` and `GET /api/diagnosis/sessions` bodies.

import type { NotificationDeliveryView } from './notifications';

export interface BudgetTotals {
  model_calls: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** The first budget limit the run hit. */
  exhausted: string | null;
}

export interface RunSummary {
  run_id: string;
  query: string;
  intent: string | null;
  status: string;
  release_outcome: string | null;
  conclusion: string | null;
  fallback_reason: string | null;
  error_code: string | null;
  budget: BudgetTotals;
  created_at: string;
  ended_at: string | null;
  duration_ms: number | null;
}

/** What started a session: a chat request, or an alert group (one session per group). */
export const SESSION_ORIGINS = ['CHAT', 'ALERT'] as const;
export type SessionOrigin = (typeof SESSION_ORIGINS)[number];

/**
 * What an alert notification did (docs/alerts.md): INVESTIGATION_STARTED, or the named reason it started
 * none. ALERT_QUEUE_FULL is answered 503 (the sender retries); every other outcome 202.
 */
export const ALERT_OUTCOMES = [
  'INVESTIGATION_STARTED',
  'RUN_IN_PROGRESS',
  'DUPLICATE_WITHIN_WINDOW',
  'ALREADY_INVESTIGATED',
  'RESOLVED_RECORDED',
  'HOURLY_CAP_REACHED',
  'ALERT_QUEUE_FULL',
] as const;
export type AlertOutcome = (typeof ALERT_OUTCOMES)[number];

/** Labels as the alert sent them: untrusted text, shown as data, never as links or markup. */
export type AlertLabels = Record<string, string>;

/** One notification an alert group's session received, and what it started or why it started none. */
export interface AlertNotificationView {
  received_at: string;
  /** firing or resolved, as the notification said. */
  status: string;
  outcome: AlertOutcome;
  run_id: string | null;
  alert_count: number;
}

/** An alert group's session: its common labels and its latest notifications, newest first. */
export interface SessionAlertView {
  labels: AlertLabels;
  notifications: AlertNotificationView[];
}

export interface SessionView {
  session_id: string;
  created_at: string;
  updated_at: string;
  origin: SessionOrigin;
  /** Present only for an alert group's session. */
  alert?: SessionAlertView;
}

export interface SessionSummary {
  session_id: string;
  created_at: string;
  /** Last activity: a run started or ended (the list order). */
  updated_at: string;
  /** Start of the newest ended run. */
  last_run_at: string | null;
  /** Runs that have ended. */
  run_count: number;
  /** Terminal status of the newest ended run. */
  last_outcome: string | null;
  /** The newest ended run's query, cut to 200 characters. */
  last_query: string | null;
  origin: SessionOrigin;
  /** An alert group's common labels; null for a chat session. */
  alert_labels: AlertLabels | null;
}

/** The calling key's sessions, most recent activity first, one keyset page. */
export interface SessionList {
  sessions: SessionSummary[];
  limit: number;
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

/** Without runId: the session's runs, newest first, one keyset page. */
export interface SessionRuns {
  session: SessionView;
  runs: RunSummary[];
  limit: number;
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

export type ScalarMap = Record<string, string | number | boolean>;

export interface ModelStep {
  step_index: number;
  role: string;
  attempt: number;
  status: string;
  error_code: string | null;
  finish_reason: string | null;
  tool_call_count: number;
  input_tokens: number | null;
  output_tokens: number | null;
  total_tokens: number | null;
  started_at: string;
  duration_ms: number | null;
}

export interface ToolInvocationView {
  tool_call_id: string | null;
  tool_name: string;
  status: string;
  evidence_status: string | null;
  error_code: string | null;
  arg_summary: ScalarMap | null;
  request_bytes: number | null;
  raw_bytes: number | null;
  agent_result_bytes: number | null;
  truncated: boolean;
  started_at: string;
  duration_ms: number | null;
}

export interface TimelineEvent {
  phase: string;
  event_type: string;
  details: Record<string, string | number | boolean | null> | null;
  at: string;
}

/** With runId: one run's bounded trace (metadata only, never reasoning or raw payloads). */
export interface RunTrace {
  session: SessionView;
  run: RunSummary;
  steps: ModelStep[];
  tool_invocations: ToolInvocationView[];
  timeline: TimelineEvent[];
  /** The run's outbound notifications, one per target it was sent to (docs/notifications.md). */
  notifications: NotificationDeliveryView[];
}

export interface ReasoningStep {
  step_index: number;
  role: string;
  /** PROVIDER_REASONING, ASSISTANT_TEXT_ONLY, UNAVAILABLE, or UNDECRYPTABLE (the stored text did not open). */
  content_source: string;
  reasoning_content: string | null;
  assistant_text: string | null;
}

/** `GET /api/diagnosis/:sessionId/trace/reasoning` (auditor only). */
export interface RunReasoning {
  session_id: string;
  run_id: string;
  steps: ReasoningStep[];
}
