import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TraceModule } from '@app/trace';
import { DELIVERY_IO, RunNotifier } from './run-notifier';
import { SYSTEM_IO } from './notification-delivery';
import { notifyConfig } from './notify.config';

@Module({
  imports: [ConfigModule.forFeature(notifyConfig), TraceModule],
  providers: [RunNotifier, { provide: DELIVERY_IO, useValue: SYSTEM_IO }],
  exports: [RunNotifier],
})
export class NotifyModule {}
