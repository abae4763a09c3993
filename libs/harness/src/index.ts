export { HarnessModule } from './harness.module';
export { harnessConfig, HarnessEnv, loadHarnessConfig } from './config/harness.config';
export type { HarnessConfig } from './config/harness.config';
export { llmConfig } from './config/llm.config';
export type { LlmConfig } from './config/llm.config';
export { redisConfig } from './config/redis.config';
export { RedisHealthIndicator } from './redis/redis.health';
