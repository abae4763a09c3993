import { Module } from '@nestjs/common';
import { TraceModule } from '../trace.module';
import { RetentionScheduler } from './retention.scheduler';
import { RunLeaseScheduler } from './run-lease.scheduler';

/** Imported by the server next to ScheduleModule.forRoot(); never by a CLI. */
@Module({ imports: [TraceModule], providers: [RetentionScheduler, RunLeaseScheduler] })
export class RetentionSchedulerModule {}
