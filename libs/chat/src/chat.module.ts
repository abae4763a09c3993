import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { GuardsModule, releaseConfig } from '@app/guards';
import { harnessConfig, HarnessModule } from '@app/harness';
import { MetricsModule, ServiceMetrics } from '@app/metrics';
import { NotifyModule } from '@app/notify';
import { toolsConfig, ToolsModule } from '@app/tools';
import { TraceModule } from '@app/trace';
import { ChatApplicationUseCase } from './chat-application.use-case';
import { ChatCapacity } from './chat-capacity';
import { ChatController } from './chat.controller';
import { chatConfig, ChatConfig } from './chat.config';
import { DiagnosisAgent } from './diagnosis/diagnosis-agent';
import { DiagnosisPipeline } from './diagnosis/diagnosis-pipeline';
import { IngressBurst } from './ingress-burst';
import { IntentRouter } from './routing/intent-router';
import { RunCompletions } from './run-completions';

@Module({
  imports: [
    ConfigModule.forFeature(chatConfig),
    ConfigModule.forFeature(harnessConfig),
    ConfigModule.forFeature(toolsConfig),
    ConfigModule.forFeature(releaseConfig),
    HarnessModule,
    ToolsModule,
    GuardsModule,
    TraceModule,
    MetricsModule,
    NotifyModule,
  ],
  controllers: [ChatController],
  providers: [
    {
      provide: ChatCapacity,
      inject: [chatConfig.KEY, ServiceMetrics],
      useFactory: (config: ChatConfig, metrics: ServiceMetrics) => {
        const capacity = new ChatCapacity(
          config.maxInFlight,
          config.maxQueue,
          config.maxQueuedPerKey,
          config.alertShare,
        );
        metrics.observeCapacity(() => capacity.load);
        return capacity;
      },
    },
    ChatApplicationUseCase,
    { provide: IngressBurst, useValue: new IngressBurst() },
    RunCompletions,
    IntentRouter,
    DiagnosisAgent,
    DiagnosisPipeline,
  ],
  exports: [ChatApplicationUseCase, DiagnosisPipeline, ChatCapacity, RunCompletions, IngressBurst],
})
export class ChatModule {}
