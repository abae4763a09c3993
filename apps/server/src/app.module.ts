import { Module, ValidationPipe } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_PIPE } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { ChatModule } from '@app/chat';
import { GuardsModule } from '@app/guards';
import { HarnessModule } from '@app/harness';
import { ToolsModule } from '@app/tools';
import { TraceModule } from '@app/trace';
import { appConfig, AppConfig } from './config/app.config';
import { buildLoggerOptions } from './config/logger.options';
import { HealthController } from './health/health.controller';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, cache: true, load: [appConfig] }),
    LoggerModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig) => buildLoggerOptions(config),
    }),
    TerminusModule,
    TraceModule,
    HarnessModule,
    ToolsModule,
    GuardsModule,
    ChatModule,
  ],
  controllers: [HealthController],
  providers: [
    {
      provide: APP_PIPE,
      useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
    },
  ],
})
export class AppModule {}
