export { HarnessModule } from './harness.module';
export { harnessConfig, loadHarnessConfig } from './config/harness.config';
export type { HarnessConfig } from './config/harness.config';
export { llmConfig, loadLlmConfig } from './config/llm.config';
export { redisConfig } from './config/redis.config';
export { RedisHealthIndicator } from './redis/redis.health';
export { RedisThrottlerStorage } from './redis/redis-throttler-storage';
export { RunContext } from './run/run-context';
export { errorKind } from './run/run-logger';
export { RunContextFactory } from './run/run-context.factory';
export {
  BudgetExhausted,
  InvalidModelOutput,
  ModelCallFailed,
  RunCancelled,
  RetryExhausted,
  RunDeadlineExceeded,
} from './run/harness-errors';
export type {
  BudgetCode,
  FailureKind,
  InvalidOutputCode,
  ModelCallCode,
  RunStop,
} from './run/harness-errors';
export { HarnessRetryPolicies } from './retry/harness-retry-policies';
export { HarnessRetryExecutor } from './retry/harness-retry-executor';
export { errorOutcome, failureCode, runStopOf } from './retry/failure-classification';
export type { ErrorOutcome, HarnessFailureCode } from './retry/failure-classification';
export { ModelGateway } from './model/model-gateway';
export { CHAT_PROVIDER } from './model/provider-chat-model';
export { PROVIDER_FAILURE_CLASSES, ProviderBodyError } from './model/provider-errors';
export type { ProviderRemedy } from './model/provider-errors';
export type { ChatProvider, ProviderCallOptions } from './model/provider-chat-model';
export { LlmProviderCheck } from './model/llm-provider-check';
export { GatewayChatModel } from './model/gateway-chat-model';
export { textOf } from './model/model-audit';
export { jsonObjectsIn, parseJsonAnswer } from './model/json-answer';
export { InvocationStore, EvidenceStoreUnavailable } from './evidence/invocation-store';
export type { AgentResult, CanonicalInvocation } from './evidence/canonical-invocation';
export { ToolBoundary } from './tools/tool-boundary';
export type { BoundaryResult } from './tools/tool-boundary';
export { bindHarnessTools } from './tools/harness-tool';
export { AgentLoopStopped, HarnessToolNode } from './tools/harness-tool-node';
export { ToolFailure } from './tools/harness-tool-definition';
export type {
  AnyHarnessTool,
  EvidenceGap,
  EvidenceView,
  HarnessToolDefinition,
  ToolProjection,
} from './tools/harness-tool-definition';
export { ToolCatalog } from './tools/tool-catalog';
export { checkLlmProvider } from './model/llm-provider-check';
export type { ProviderCheckResult } from './model/llm-provider-check';
export { probeRedisAccess } from './redis/redis-access-probe';
export type { RedisAccess } from './redis/redis-access-probe';
