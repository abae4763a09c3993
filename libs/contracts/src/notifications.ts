// Outbound notifications of a finished run (docs/notifications.md): the code lists the trace API and the
// web UI show.

/** The vendor message formats a notification target can speak. */
export const NOTIFICATION_KINDS = ['webhook', 'slack', 'feishu', 'dingtalk', 'wecom'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * A delivery's state: OWED from an alert-started run's start until its end is sent; SENDING while one
 * replica holds the (run, target) claim and is still trying. An OWED row of a run that ended a minute ago,
 * a claim older than the delivery policy's longest possible try, or one a replica gave up at shutdown is
 * taken over by another replica and sent with the same Idempotency-Key (docs/notifications.md).
 */
export const NOTIFICATION_STATUSES = ['OWED', 'SENDING', 'DELIVERED', 'FAILED'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** Why a delivery failed (its last attempt's class); null when it was delivered or is still sending. */
export const NOTIFICATION_FAILURES = [
  /** No answer within NOTIFY_TIMEOUT_MS. */
  'TIMEOUT',
  /** The connection failed (refused, reset, DNS). */
  'NETWORK_ERROR',
  /** HTTP 429, or the vendor's own rate-limit error code, on every attempt. */
  'RATE_LIMITED',
  /** HTTP 5xx on the last attempt. */
  'SERVER_ERROR',
  /** HTTP 4xx other than 429: the target refused the message; not retried. */
  'REJECTED',
  /** HTTP 3xx: redirects are not followed (the URL may carry a credential). */
  'REDIRECTED',
  /** HTTP 200 with the vendor's error code in the body (Feishu `code`, DingTalk/WeCom `errcode`). */
  'VENDOR_ERROR',
  /** HTTP 2xx whose body is not the vendor's documented answer. */
  'BAD_RESPONSE',
  /** The run's terminal state was not stored; nothing is sent for a run still RUNNING (resumed once it is). */
  'RUN_NOT_FINISHED',
  /** The service stopped before the delivery finished; another replica resumes it. */
  'SHUTDOWN',
  /** The target was removed from the targets file before a resumed delivery could be sent. */
  'TARGET_REMOVED',
] as const;
export type NotificationFailure = (typeof NOTIFICATION_FAILURES)[number];

/** What started the run a notification reports on. */
export const NOTIFICATION_TRIGGERS = ['chat', 'alert'] as const;
export type NotificationTrigger = (typeof NOTIFICATION_TRIGGERS)[number];

/** One (run, target) delivery as the trace API shows it: never the target's URL or secrets. */
export interface NotificationDeliveryView {
  target: string;
  kind: string;
  trigger: string;
  status: string;
  failure: string | null;
  /** HTTP requests made (1 = delivered or failed on the first try). */
  attempts: number;
  /** The last answer's HTTP status; null when no answer came (timeout, network error). */
  last_http_status: number | null;
  /** The vendor's error code from a 200 answer's body (Feishu `code`, DingTalk/WeCom `errcode`). */
  vendor_code: number | null;
  created_at: string;
  updated_at: string;
}
