import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TraceModule } from '@app/trace';

/**
 * `npm run purge` boots only config and the trace store: no HTTP, no scheduler and no start-up
 * retention sweep, which would purge the rows before the CLI could count them.
 */
@Module({ imports: [ConfigModule.forRoot({ isGlobal: true, cache: true }), TraceModule] })
export class PurgeCliModule {}
