// Alert ingestion and outbound notifications: the closed code sets their trace rows and metrics use.

/** The `status` of an Alertmanager (webhook version 4) notification: of its group as a whole. */
export const ALERT_STATUSES = ['firing', 'resolved'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** Why a firing alert group started no investigation: one is running, or one ran within the window. */
export const ALERT_DEDUP_REASONS = ['INVESTIGATION_RUNNING', 'WITHIN_WINDOW'] as const;
export type AlertDedupReason = (typeof ALERT_DEDUP_REASONS)[number];

/** The kinds of notification target, each with its vendor's documented message format. */
export const NOTIFICATION_TARGET_KINDS = ['WEBHOOK', 'SLACK', 'FEISHU', 'DINGTALK', 'WECOM'] as const;
export type NotificationTargetKind = (typeof NOTIFICATION_TARGET_KINDS)[number];

/**
 * Why a notification was not delivered after its bounded retries: no answer in time, no connection, an
 * HTTP error class, the vendor's own error in a 2xx body (e.g. a bad signature), or a body that is not
 * the vendor's answer.
 */
export const NOTIFICATION_FAILURE_REASONS = [
  'TIMEOUT',
  'UNREACHABLE',
  'HTTP_4XX',
  'HTTP_5XX',
  'VENDOR_REJECTED',
  'BAD_RESPONSE',
] as const;
export type NotificationFailureReason = (typeof NOTIFICATION_FAILURE_REASONS)[number];
