import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import { harnessConfig } from './config/harness.config';
import { llmConfig } from './config/llm.config';
import { redisConfig } from './config/redis.config';
import { RedisHealthIndicator } from './redis/redis.health';
import { RedisLifecycle, redisProvider } from './redis/redis.provider';

@Module({
  imports: [
    ConfigModule.forFeature(harnessConfig),
    ConfigModule.forFeature(llmConfig),
    ConfigModule.forFeature(redisConfig),
    TerminusModule,
  ],
  providers: [redisProvider, RedisLifecycle, RedisHealthIndicator],
  exports: [RedisHealthIndicator],
})
export class HarnessModule {}
