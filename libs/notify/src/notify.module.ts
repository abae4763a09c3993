import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { MetricsModule } from '@app/metrics';
import { TraceModule } from '@app/trace';
import { DELIVERY_IO, RunNotifier } from './run-notifier';
import { SYSTEM_IO } from './notification-delivery';
import { notifyConfig } from './notify.config';
import { NotificationSweeper } from './notification-sweeper';

@Module({
  imports: [ConfigModule.forFeature(notifyConfig), TraceModule, MetricsModule],
  providers: [RunNotifier, NotificationSweeper, { provide: DELIVERY_IO, useValue: SYSTEM_IO }],
  exports: [RunNotifier, NotificationSweeper],
})
export class NotifyModule {}
