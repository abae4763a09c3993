import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { ThrottlerModule } from '@nestjs/throttler';
import { TerminusModule } from '@nestjs/terminus';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { LoggerModule } from 'nestjs-pino';
import { AlertsModule } from '@app/alerts';
import { AuthModule } from '@app/auth';
import { ChatModule } from '@app/chat';
import { GuardsModule } from '@app/guards';
import { HarnessModule, RedisThrottlerStorage } from '@app/harness';
import { MetricsModule } from '@app/metrics';
import { DataSourceHealthModule, ToolsModule } from '@app/tools';
import { RetentionSchedulerModule, TraceModule } from '@app/trace';
import { JsonThrottlerGuard } from './http/json-throttler.guard';
import { appConfig, AppConfig } from './config/app.config';
import { buildLoggerOptions } from './config/logger.options';
import { HealthController } from './health/health.controller';
import { ConnectionDrain } from './http/connection-drain';
import { RequestBodyModule } from './http/request-parsing';
import { RequestValidationPipe } from './http/request-validation.pipe';
import { MetricsController } from './metrics/metrics.controller';
import { SafeExceptionFilter } from './http/safe-exception.filter';
import { WebUiModule } from './web/web-ui.module';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, cache: true, load: [appConfig] }),
    LoggerModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig) => buildLoggerOptions(config),
    }),
    ScheduleModule.forRoot(),
    RetentionSchedulerModule,
    ThrottlerModule.forRootAsync({
      imports: [HarnessModule],
      inject: [appConfig.KEY, RedisThrottlerStorage],
      // Counted in Redis, so several replicas behind one load balancer enforce one limit per client.
      useFactory: (config: AppConfig, storage: RedisThrottlerStorage) => ({
        throttlers: [{ ttl: config.throttle.ttl, limit: config.throttle.limit }],
        storage,
      }),
    }),
    TerminusModule,
    AuthModule,
    // After AuthModule: its guard runs before RequestBodyGuard (401/403 before 400/415).
    RequestBodyModule,
    MetricsModule,
    PrometheusModule.register({ path: '/metrics', controller: MetricsController }),
    TraceModule,
    HarnessModule,
    ToolsModule,
    DataSourceHealthModule,
    GuardsModule,
    ChatModule,
    AlertsModule,
    WebUiModule,
  ],
  controllers: [HealthController],
  providers: [
    ConnectionDrain,
    { provide: APP_GUARD, useClass: JsonThrottlerGuard },
    { provide: APP_FILTER, useClass: SafeExceptionFilter },
    { provide: APP_PIPE, useValue: new RequestValidationPipe() },
  ],
})
export class AppModule {}
