import type { NotificationTrigger } from '@app/contracts';
import type { DiagnosisRun } from '@app/trace';

/** What the seam hands over when a run has reached its terminal state (chat today, alerts at merge). */
export interface FinishedRunSummary {
  runId: string;
  sessionId: string;
  trigger: NotificationTrigger;
  /** Target names to notify; null = every configured target. */
  targets: readonly string[] | null;
  /** The alert's labels (untrusted text) for an alert-started run; null for a chat. */
  alertLabels: Readonly<Record<string, string>> | null;
}

/**
 * One notification, built by code from the run's stored terminal row: `text` is the run's released
 * conclusion or a fixed text, never a draft — the run row holds a conclusion only when the release policy
 * released it (status SUCCESS), so nothing a caller passes can put unreleased text into a message.
 */
export interface NotificationMessage {
  runId: string;
  sessionId: string;
  trigger: NotificationTrigger;
  /** The run's terminal status: SUCCESS, FALLBACK, FAILED or CANCELLED. */
  outcome: string;
  /** True when `text` is the released conclusion; false when it is the fixed text of the outcome. */
  released: boolean;
  /** One line: outcome and what started the run. */
  title: string;
  text: string;
  /** fallback_reason or error_code of the run, a code (never text); null on SUCCESS. */
  reason: string | null;
  alertLabels: Readonly<Record<string, string>> | null;
  /** The run in the web UI, from NOTIFY_PUBLIC_BASE_URL. */
  runUrl: string;
}

/** The fixed texts sent instead of a conclusion: never model output. */
export const FIXED_TEXTS = {
  FALLBACK:
    '本次诊断未发布经过验证的结论 / No verified conclusion was released for this run; see the run in the UI for why.',
  FAILED: '本次运行失败，未发布结论 / The run failed; no conclusion was released.',
  CANCELLED: '本次运行已取消，未发布结论 / The run was cancelled; no conclusion was released.',
  ANSWERED: '本次运行已完成，回答见运行记录 / The run finished; its answer is in the UI.',
} as const;

const TITLES: Record<string, string> = {
  SUCCESS: '诊断完成 / Run finished',
  FALLBACK: '未发布结论 / No verified conclusion',
  FAILED: '运行失败 / Run failed',
  CANCELLED: '运行已取消 / Run cancelled',
};

/** The UI's address of a run (apps/web router: `#/runs/<session>/<run>`). */
export function runUrlOf(publicBaseUrl: string, sessionId: string, runId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/#/runs/${encodeURIComponent(sessionId)}/${encodeURIComponent(runId)}`;
}

/** The message of a run that has left RUNNING; null when it has not (nothing may be sent then). */
export function notificationMessageOf(
  run: DiagnosisRun,
  summary: FinishedRunSummary,
  publicBaseUrl: string,
): NotificationMessage | null {
  if (run.status === 'RUNNING') return null;
  const released = run.status === 'SUCCESS' && run.conclusion !== null && run.conclusion.trim() !== '';
  const text = released
    ? (run.conclusion as string)
    : run.status === 'SUCCESS'
      ? FIXED_TEXTS.ANSWERED
      : FIXED_TEXTS[run.status];
  const origin = summary.trigger === 'alert' ? '告警 / alert' : '对话 / chat';
  return {
    runId: run.runId,
    sessionId: run.sessionId,
    trigger: summary.trigger,
    outcome: run.status,
    released,
    title: `[${run.status}] ${TITLES[run.status] ?? run.status} · ${origin}`,
    text,
    reason: run.status === 'SUCCESS' ? null : (run.fallbackReason ?? run.errorCode ?? null),
    alertLabels: summary.alertLabels,
    runUrl: runUrlOf(publicBaseUrl, run.sessionId, run.runId),
  };
}
