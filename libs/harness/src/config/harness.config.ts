import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';
import { RETRY_MATRIX } from '../retry/harness-retry-policies';

const KB = 1024;
const MB = 1024 * KB;

/**
 * Every Harness budget and limit (docs/architecture.md "Budgets per role", "Redis canonical record"): a default, a rule,
 * and the environment variable that overrides it. Retry attempts may be lowered, never raised.
 */
@EnvSection('harness', 'Harness budgets and limits')
export class HarnessEnv {
  // Diagnosis Agent run budget
  @IsInt() @Min(1) @Max(100) HARNESS_AGENT_MAX_MODEL_CALLS: number = 12;
  @IsInt() @Min(1) @Max(100) HARNESS_AGENT_MAX_TOOL_CALLS: number = 10;
  @IsInt() @Min(1) @Max(100) HARNESS_AGENT_MAX_CALLS_PER_TOOL: number = 6;
  @IsInt() @Min(1000) @Max(10_000_000) HARNESS_AGENT_MAX_INPUT_TOKENS: number = 200_000;
  @IsInt() @Min(100) @Max(1_000_000) HARNESS_AGENT_MAX_OUTPUT_TOKENS: number = 20_000;
  @IsInt() @Min(1000) @Max(11_000_000) HARNESS_AGENT_MAX_TOTAL_TOKENS: number = 220_000;
  @IsInt() @Min(1000) @Max(3_600_000) HARNESS_RUN_TIMEOUT_MS: number = 180_000;
  @IsInt() @Min(100) @Max(600_000) HARNESS_MODEL_CALL_TIMEOUT_MS: number = 60_000;
  @IsInt() @Min(100) @Max(600_000) HARNESS_TOOL_CALL_TIMEOUT_MS: number = 20_000;

  // Time the guards keep inside the run deadline: the agent loop must end this long before it
  @IsInt() @Min(100) @Max(1_200_000) HARNESS_GUARD_TIME_RESERVE_MS: number = 60_000;

  // Token budgets of the other roles; each draws only from its own (calls come from the retry matrix)
  @IsInt() @Min(100) @Max(1_000_000) HARNESS_ROUTER_MAX_OUTPUT_TOKENS: number = 2000;
  @IsInt() @Min(1000) @Max(11_000_000) HARNESS_ROUTER_MAX_TOTAL_TOKENS: number = 20_000;
  @IsInt() @Min(100) @Max(1_000_000) HARNESS_SYSTEM_CHAT_MAX_OUTPUT_TOKENS: number = 2000;
  @IsInt() @Min(1000) @Max(11_000_000) HARNESS_SYSTEM_CHAT_MAX_TOTAL_TOKENS: number = 20_000;
  @IsInt() @Min(100) @Max(1_000_000) HARNESS_KNOWLEDGE_ANSWER_MAX_OUTPUT_TOKENS: number = 4000;
  @IsInt() @Min(1000) @Max(11_000_000) HARNESS_KNOWLEDGE_ANSWER_MAX_TOTAL_TOKENS: number = 40_000;
  @IsInt() @Min(100) @Max(1_000_000) HARNESS_REPAIR_MAX_OUTPUT_TOKENS: number = 8000;
  @IsInt() @Min(1000) @Max(11_000_000) HARNESS_REPAIR_MAX_TOTAL_TOKENS: number = 100_000;
  @IsInt() @Min(100) @Max(1_000_000) HARNESS_SEMANTIC_MAX_OUTPUT_TOKENS: number = 8000;
  @IsInt() @Min(1000) @Max(11_000_000) HARNESS_SEMANTIC_MAX_TOTAL_TOKENS: number = 100_000;
  @IsInt() @Min(100) @Max(1_000_000) HARNESS_KNOWLEDGE_GUARD_MAX_OUTPUT_TOKENS: number = 8000;
  @IsInt() @Min(1000) @Max(11_000_000) HARNESS_KNOWLEDGE_GUARD_MAX_TOTAL_TOKENS: number = 100_000;

  // SemanticGuard
  @IsInt() @Min(100) @Max(600_000) HARNESS_SEMANTIC_CALL_TIMEOUT_MS: number = 30_000;
  @IsInt() @Min(100) @Max(1_200_000) HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS: number = 65_000;
  @IsInt() @Min(1000) @Max(1_000_000) HARNESS_SEMANTIC_MAX_INPUT_CHARS: number = 60_000;

  // Retry matrix (docs/architecture.md "Retry matrix"): RETRY_MATRIX is the one source of each maximum,
  // which is also the default; the environment may only lower it.
  @IsInt()
  @Min(1)
  @Max(RETRY_MATRIX.intent_router.maxAttempts)
  HARNESS_RETRY_INTENT_ROUTER_MAX_ATTEMPTS: number = RETRY_MATRIX.intent_router.maxAttempts;
  @IsInt()
  @Min(1)
  @Max(RETRY_MATRIX.diagnosis_agent.maxAttempts)
  HARNESS_RETRY_DIAGNOSIS_AGENT_MAX_ATTEMPTS: number = RETRY_MATRIX.diagnosis_agent.maxAttempts;
  @IsInt()
  @Min(1)
  @Max(RETRY_MATRIX.tool_call.maxAttempts)
  HARNESS_RETRY_TOOL_CALL_MAX_ATTEMPTS: number = RETRY_MATRIX.tool_call.maxAttempts;
  @IsInt()
  @Min(1)
  @Max(RETRY_MATRIX.semantic_guard.maxAttempts)
  HARNESS_RETRY_SEMANTIC_GUARD_MAX_ATTEMPTS: number = RETRY_MATRIX.semantic_guard.maxAttempts;
  @IsInt()
  @Min(1)
  @Max(RETRY_MATRIX.evidence_repair.maxAttempts)
  HARNESS_RETRY_EVIDENCE_REPAIR_MAX_ATTEMPTS: number = RETRY_MATRIX.evidence_repair.maxAttempts;
  @IsInt()
  @Min(1)
  @Max(RETRY_MATRIX.knowledge_guard.maxAttempts)
  HARNESS_RETRY_KNOWLEDGE_GUARD_MAX_ATTEMPTS: number = RETRY_MATRIX.knowledge_guard.maxAttempts;

  // Redis canonical invocation store
  @IsString() @Matches(/^[a-z0-9:_-]{1,64}$/) HARNESS_EVIDENCE_KEY_PREFIX: string =
    'superbiz:harness:tool-call';
  @IsInt() @Min(60) @Max(7 * 24 * 3600) HARNESS_EVIDENCE_TTL_SECONDS: number = 2 * 3600;
  @IsInt() @Min(60) @Max(24 * 3600) HARNESS_EVIDENCE_TTL_SAFETY_MARGIN_SECONDS: number = 600;
  @IsInt() @Min(4 * KB) @Max(64 * MB) HARNESS_EVIDENCE_MAX_RECORD_BYTES: number = 1 * MB;
  @IsInt() @Min(1 * KB) @Max(16 * MB) HARNESS_EVIDENCE_MAX_AGENT_RESULT_BYTES: number = 64 * KB;
  @IsInt() @Min(4 * KB) @Max(512 * MB) HARNESS_EVIDENCE_MAX_RUN_BYTES: number = 5 * MB;
  /**
   * Extra attempts of an evidence-store command that timed out or found the connection down (every one
   * is idempotent; the driver itself never retries). Past them the store is unavailable, a named outage.
   */
  @IsInt() @Min(0) @Max(5) HARNESS_EVIDENCE_STORE_RETRIES: number = 2;
  /** Wait before the n-th retry: n times this. */
  @IsInt() @Min(0) @Max(5000) HARNESS_EVIDENCE_STORE_RETRY_DELAY_MS: number = 100;

  // previous_turn (docs/architecture.md "Previous turn")
  @IsInt() @Min(50) @Max(20_000) HARNESS_PREVIOUS_TURN_MAX_FIELD_CHARS: number = 1000;
  @IsInt() @Min(0) @Max(50) HARNESS_PREVIOUS_TURN_MAX_SOURCE_DOCUMENTS: number = 5;
}

/** Relations between keys that single-key rules cannot express. */
function checkRelations(env: HarnessEnv): void {
  const problems: string[] = [];
  // docs/architecture.md "Redis canonical record": evidence must outlive the longest run and its review, with a safety margin on top.
  const ttlMs = env.HARNESS_EVIDENCE_TTL_SECONDS * 1000;
  const needed =
    env.HARNESS_RUN_TIMEOUT_MS +
    env.HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS +
    env.HARNESS_EVIDENCE_TTL_SAFETY_MARGIN_SECONDS * 1000;
  if (ttlMs <= needed) {
    problems.push(
      'HARNESS_EVIDENCE_TTL_SECONDS must exceed HARNESS_RUN_TIMEOUT_MS + HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS + HARNESS_EVIDENCE_TTL_SAFETY_MARGIN_SECONDS (evidence must outlive the run)',
    );
  }
  if (env.HARNESS_GUARD_TIME_RESERVE_MS >= env.HARNESS_RUN_TIMEOUT_MS) {
    problems.push(
      'HARNESS_GUARD_TIME_RESERVE_MS must be less than HARNESS_RUN_TIMEOUT_MS (the agent loop needs time too)',
    );
  }
  for (const role of [
    'ROUTER',
    'SYSTEM_CHAT',
    'KNOWLEDGE_ANSWER',
    'REPAIR',
    'SEMANTIC',
    'KNOWLEDGE_GUARD',
  ] as const) {
    if (env[`HARNESS_${role}_MAX_OUTPUT_TOKENS`] > env[`HARNESS_${role}_MAX_TOTAL_TOKENS`])
      problems.push(`HARNESS_${role}_MAX_OUTPUT_TOKENS must not exceed HARNESS_${role}_MAX_TOTAL_TOKENS`);
  }
  if (env.HARNESS_AGENT_MAX_OUTPUT_TOKENS > env.HARNESS_AGENT_MAX_TOTAL_TOKENS) {
    problems.push('HARNESS_AGENT_MAX_OUTPUT_TOKENS must not exceed HARNESS_AGENT_MAX_TOTAL_TOKENS');
  }
  if (env.HARNESS_EVIDENCE_MAX_AGENT_RESULT_BYTES > env.HARNESS_EVIDENCE_MAX_RECORD_BYTES) {
    problems.push(
      'HARNESS_EVIDENCE_MAX_AGENT_RESULT_BYTES must not exceed HARNESS_EVIDENCE_MAX_RECORD_BYTES',
    );
  }
  if (env.HARNESS_EVIDENCE_MAX_RECORD_BYTES > env.HARNESS_EVIDENCE_MAX_RUN_BYTES) {
    problems.push('HARNESS_EVIDENCE_MAX_RECORD_BYTES must not exceed HARNESS_EVIDENCE_MAX_RUN_BYTES');
  }
  if (env.HARNESS_AGENT_MAX_CALLS_PER_TOOL > env.HARNESS_AGENT_MAX_TOOL_CALLS) {
    problems.push('HARNESS_AGENT_MAX_CALLS_PER_TOOL must not exceed HARNESS_AGENT_MAX_TOOL_CALLS');
  }
  if (env.HARNESS_SEMANTIC_CALL_TIMEOUT_MS > env.HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS) {
    problems.push('HARNESS_SEMANTIC_CALL_TIMEOUT_MS must not exceed HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS');
  }
  if (problems.length > 0) throw new ConfigValidationError(problems);
}

/** A role's token pool: input is bounded by the total, the role's prompt inputs are bounded by chars. */
function tokens(maxOutputTokens: number, maxTotalTokens: number) {
  return { maxInputTokens: maxTotalTokens, maxOutputTokens, maxTotalTokens };
}

export function loadHarnessConfig(source: Record<string, string | undefined> = process.env) {
  const env = validateEnv(HarnessEnv, source);
  checkRelations(env);
  return {
    agent: {
      maxModelCalls: env.HARNESS_AGENT_MAX_MODEL_CALLS,
      maxToolCalls: env.HARNESS_AGENT_MAX_TOOL_CALLS,
      maxCallsPerTool: env.HARNESS_AGENT_MAX_CALLS_PER_TOOL,
      maxInputTokens: env.HARNESS_AGENT_MAX_INPUT_TOKENS,
      maxOutputTokens: env.HARNESS_AGENT_MAX_OUTPUT_TOKENS,
      maxTotalTokens: env.HARNESS_AGENT_MAX_TOTAL_TOKENS,
      runTimeoutMs: env.HARNESS_RUN_TIMEOUT_MS,
      modelCallTimeoutMs: env.HARNESS_MODEL_CALL_TIMEOUT_MS,
      toolCallTimeoutMs: env.HARNESS_TOOL_CALL_TIMEOUT_MS,
      guardTimeReserveMs: env.HARNESS_GUARD_TIME_RESERVE_MS,
    },
    roleTokens: {
      'intent-router': tokens(env.HARNESS_ROUTER_MAX_OUTPUT_TOKENS, env.HARNESS_ROUTER_MAX_TOTAL_TOKENS),
      'system-chat': tokens(
        env.HARNESS_SYSTEM_CHAT_MAX_OUTPUT_TOKENS,
        env.HARNESS_SYSTEM_CHAT_MAX_TOTAL_TOKENS,
      ),
      'knowledge-answer': tokens(
        env.HARNESS_KNOWLEDGE_ANSWER_MAX_OUTPUT_TOKENS,
        env.HARNESS_KNOWLEDGE_ANSWER_MAX_TOTAL_TOKENS,
      ),
      'evidence-repair': tokens(env.HARNESS_REPAIR_MAX_OUTPUT_TOKENS, env.HARNESS_REPAIR_MAX_TOTAL_TOKENS),
      'semantic-guard': tokens(env.HARNESS_SEMANTIC_MAX_OUTPUT_TOKENS, env.HARNESS_SEMANTIC_MAX_TOTAL_TOKENS),
      'knowledge-guard': tokens(
        env.HARNESS_KNOWLEDGE_GUARD_MAX_OUTPUT_TOKENS,
        env.HARNESS_KNOWLEDGE_GUARD_MAX_TOTAL_TOKENS,
      ),
    },
    semantic: {
      callTimeoutMs: env.HARNESS_SEMANTIC_CALL_TIMEOUT_MS,
      totalTimeoutMs: env.HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS,
      maxInputChars: env.HARNESS_SEMANTIC_MAX_INPUT_CHARS,
    },
    retry: {
      intentRouter: env.HARNESS_RETRY_INTENT_ROUTER_MAX_ATTEMPTS,
      diagnosisAgent: env.HARNESS_RETRY_DIAGNOSIS_AGENT_MAX_ATTEMPTS,
      toolCall: env.HARNESS_RETRY_TOOL_CALL_MAX_ATTEMPTS,
      semanticGuard: env.HARNESS_RETRY_SEMANTIC_GUARD_MAX_ATTEMPTS,
      evidenceRepair: env.HARNESS_RETRY_EVIDENCE_REPAIR_MAX_ATTEMPTS,
      knowledgeGuard: env.HARNESS_RETRY_KNOWLEDGE_GUARD_MAX_ATTEMPTS,
    },
    evidence: {
      keyPrefix: env.HARNESS_EVIDENCE_KEY_PREFIX,
      ttlSeconds: env.HARNESS_EVIDENCE_TTL_SECONDS,
      maxRecordBytes: env.HARNESS_EVIDENCE_MAX_RECORD_BYTES,
      maxAgentResultBytes: env.HARNESS_EVIDENCE_MAX_AGENT_RESULT_BYTES,
      maxRunBytes: env.HARNESS_EVIDENCE_MAX_RUN_BYTES,
      storeRetries: env.HARNESS_EVIDENCE_STORE_RETRIES,
      storeRetryDelayMs: env.HARNESS_EVIDENCE_STORE_RETRY_DELAY_MS,
    },
    previousTurn: {
      maxFieldChars: env.HARNESS_PREVIOUS_TURN_MAX_FIELD_CHARS,
      maxSourceDocuments: env.HARNESS_PREVIOUS_TURN_MAX_SOURCE_DOCUMENTS,
    },
  };
}

export const harnessConfig = registerAs('harness', () => loadHarnessConfig());
export type HarnessConfig = ConfigType<typeof harnessConfig>;
