import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ChatModule } from '@app/chat';
import { MetricsModule } from '@app/metrics';
import { NotifyModule } from '@app/notify';
import { TraceModule } from '@app/trace';
import { alertsConfig } from './alerts.config';
import { AlertIngestService } from './alert-ingest.service';
import { AlertsController } from './alerts.controller';
import { AlertRunNotifications } from './alert-run-notifications';

/** Alerts in: the Alertmanager/Grafana webhook, dedup per alert group, and investigations as ordinary runs. */
@Module({
  imports: [ConfigModule.forFeature(alertsConfig), ChatModule, TraceModule, NotifyModule, MetricsModule],
  controllers: [AlertsController],
  providers: [AlertIngestService, AlertRunNotifications],
})
export class AlertsModule {}
