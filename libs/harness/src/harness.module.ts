import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import { MetricsModule, ServiceMetrics } from '@app/metrics';
import { TraceModule } from '@app/trace';
import { harnessConfig } from './config/harness.config';
import { llmConfig, LlmConfig } from './config/llm.config';
import { redisConfig } from './config/redis.config';
import { InvocationStore } from './evidence/invocation-store';
import { LlmProviderCheck } from './model/llm-provider-check';
import { ModelGateway } from './model/model-gateway';
import { CHAT_PROVIDER, createProviderChatModel } from './model/provider-chat-model';
import { RedisHealthIndicator } from './redis/redis.health';
import { RedisThrottlerStorage } from './redis/redis-throttler-storage';
import { RedisLifecycle, redisProvider } from './redis/redis.provider';
import { HARNESS_FAILURE_CODES } from './retry/failure-classification';
import { HarnessRetryExecutor } from './retry/harness-retry-executor';
import { BudgetAudit } from './run/budget-audit';
import { RunContextFactory } from './run/run-context.factory';
import { ToolBoundary } from './tools/tool-boundary';
import { ToolCatalog } from './tools/tool-catalog';

const PUBLIC = [
  RunContextFactory,
  ModelGateway,
  ToolBoundary,
  InvocationStore,
  HarnessRetryExecutor,
  RedisHealthIndicator,
  LlmProviderCheck,
  ToolCatalog,
  RedisThrottlerStorage,
];

@Module({
  imports: [
    ConfigModule.forFeature(harnessConfig),
    ConfigModule.forFeature(llmConfig),
    ConfigModule.forFeature(redisConfig),
    TerminusModule,
    TraceModule,
    MetricsModule,
  ],
  providers: [
    redisProvider,
    RedisLifecycle,
    BudgetAudit,
    {
      provide: CHAT_PROVIDER,
      useFactory: (llm: LlmConfig) => createProviderChatModel(llm),
      inject: [llmConfig.KEY],
    },
    ...PUBLIC,
  ],
  exports: PUBLIC,
})
export class HarnessModule {
  constructor(metrics: ServiceMetrics) {
    // What a failed model step can be recorded under: the closed set its metric counts by.
    metrics.declareModelErrorCodes(HARNESS_FAILURE_CODES);
  }
}
