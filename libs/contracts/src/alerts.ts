// Alert ingestion: the closed code sets its trace rows and metrics use (notifications: notifications.ts).

/** The `status` of an Alertmanager (webhook version 4) notification: of its group as a whole. */
export const ALERT_STATUSES = ['firing', 'resolved'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** Why a firing alert group started no investigation: one is running, or one ran within the window. */
export const ALERT_DEDUP_REASONS = ['INVESTIGATION_RUNNING', 'WITHIN_WINDOW'] as const;
export type AlertDedupReason = (typeof ALERT_DEDUP_REASONS)[number];
