import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ChatModule } from '@app/chat';
import { TraceModule } from '@app/trace';
import { alertsConfig } from './alerts.config';
import { AlertIngestService } from './alert-ingest.service';
import { AlertsController } from './alerts.controller';

/** Alerts in: the Alertmanager/Grafana webhook, dedup per alert group, and investigations as ordinary runs. */
@Module({
  imports: [ConfigModule.forFeature(alertsConfig), ChatModule, TraceModule],
  controllers: [AlertsController],
  providers: [AlertIngestService],
})
export class AlertsModule {}
