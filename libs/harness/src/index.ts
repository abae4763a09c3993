export { HarnessModule } from './harness.module';
export { harnessConfig, HarnessEnv, loadHarnessConfig } from './config/harness.config';
export type { HarnessConfig } from './config/harness.config';
export { llmConfig, loadLlmConfig } from './config/llm.config';
export type { LlmConfig } from './config/llm.config';
export { redisConfig } from './config/redis.config';
export { RedisHealthIndicator } from './redis/redis.health';
export { RunContext } from './run/run-context';
export { RunLogger } from './run/run-logger';
export { RunContextFactory } from './run/run-context.factory';
export type { NewRun } from './run/run-context.factory';
export { RunBudget } from './run/run-budget';
export type { BudgetLimits, BudgetTotals, RoleLimits, TokenUsage } from './run/run-budget';
export {
  BUDGET_LIMITS,
  BudgetExhausted,
  FAILURE_KINDS,
  InvalidModelOutput,
  isRunTerminating,
  ModelCallFailed,
  RunCancelled,
  RunDeadlineExceeded,
  runStopOf,
} from './run/harness-errors';
export type { BudgetLimit, FailureKind, RunStop } from './run/harness-errors';
export { HarnessRetryPolicies, RETRY_MATRIX, RETRY_OPERATIONS } from './retry/harness-retry-policies';
export type { RetryOperation, RetryPolicy } from './retry/harness-retry-policies';
export { HarnessRetryExecutor, RetryExhausted } from './retry/harness-retry-executor';
export { classifyFailure, failureCode } from './retry/failure-classification';
export { ModelGateway } from './model/model-gateway';
export type { ModelRequest } from './model/model-gateway';
export { GatewayChatModel } from './model/gateway-chat-model';
export { PROMPT_ROLES } from './model/prompt-library';
export type { PromptRole } from './model/prompt-library';
export { textOf } from './model/model-audit';
export { parseJsonAnswer } from './model/json-answer';
export { InvocationStore, EvidenceStoreUnavailable } from './evidence/invocation-store';
export { EVIDENCE_STATUSES, INVOCATION_STATUSES } from './evidence/canonical-invocation';
export type {
  AgentResult,
  CanonicalInvocation,
  EvidenceStatus,
  InvocationStatus,
  ReadyInvocation,
} from './evidence/canonical-invocation';
export { ToolBoundary, TOOL_ERROR_CODES } from './tools/tool-boundary';
export type { BoundaryResult, ToolErrorCode } from './tools/tool-boundary';
export { bindHarnessTools, HarnessTool } from './tools/harness-tool';
export { HarnessToolNode } from './tools/harness-tool-node';
export { EVIDENCE_SOURCE_TYPES, ToolFailure } from './tools/harness-tool-definition';
export type {
  AnyHarnessTool,
  ArgSummary,
  EvidenceSourceType,
  EvidenceView,
  HarnessToolDefinition,
  ToolProjection,
} from './tools/harness-tool-definition';
export { ToolCatalog } from './tools/tool-catalog';
export { isValidToolCallId } from './tools/tool-call-id';
