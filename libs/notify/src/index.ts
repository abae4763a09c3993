export { NotifyModule } from './notify.module';
export { RunNotifier, idempotencyKeyOf } from './run-notifier';
export { NotificationSweeper } from './notification-sweeper';
export type { FinishedRunSummary, NotificationMessage } from './notification-message';
export { notifyConfig, NotifyEnv } from './notify.config';
export type { NotifyConfig } from './notify.config';
export { TARGET_NAME } from './notification-targets';
