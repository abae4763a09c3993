export { AlertsModule } from './alerts.module';
export { alertsConfig } from './alerts.config';
export type { AlertsConfig } from './alerts.config';
export { ALERT_LIMITS } from './alertmanager-webhook.dto';
