// Alert ingestion: the closed code sets its trace rows and metrics use (notifications: notifications.ts).

/** The `status` of an Alertmanager (webhook version 4) notification: of its group as a whole. */
export const ALERT_STATUSES = ['firing', 'resolved'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

import type { AlertOutcome } from './trace-api';

/**
 * The outcomes (of ALERT_OUTCOMES) of a firing alert group that started nothing because it repeats one:
 * an investigation is running, one ran within the window, or one ran for the same alerts.
 */
export const ALERT_DEDUP_REASONS = [
  'RUN_IN_PROGRESS',
  'DUPLICATE_WITHIN_WINDOW',
  'ALREADY_INVESTIGATED',
] as const satisfies readonly AlertOutcome[];
export type AlertDedupReason = (typeof ALERT_DEDUP_REASONS)[number];
