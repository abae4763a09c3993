import { ConfigType, registerAs } from '@nestjs/config';
import { IsIn, IsInt, IsNumber, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { ConfigValidationError, EnvSection, validateEnv } from '@app/config';
import type { PromptRole } from '../model/prompt-library';

const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high'] as const;
type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

const STARTUP_CHECKS = ['models', 'completion', 'off'] as const;
type StartupCheck = (typeof STARTUP_CHECKS)[number];

/** Request fields the gateway owns: LLM_EXTRA_BODY may not override them. */
const RESERVED_BODY_KEYS = [
  'model',
  'messages',
  'tools',
  'tool_choice',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'n',
];

/** Any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, the stub server). */
@EnvSection('harness', 'LLM')
export class LlmEnv {
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  LLM_BASE_URL: string = 'http://127.0.0.1:4010/v1';

  @IsString() @MinLength(1) LLM_API_KEY: string = 'stub-key';
  @IsString() @MinLength(1) LLM_MODEL: string = 'deepseek-chat';

  /** Directory of the role prompts (`<role>.md`). */
  @IsString() @MinLength(1) PROMPTS_DIR: string = 'prompts';

  /** Sampling temperature; unset leaves the provider's default (thinking models ignore it). */
  @IsOptional() @IsNumber() @Min(0) @Max(2) LLM_TEMPERATURE?: number;

  /** Sent as `reasoning_effort`; unset sends nothing. */
  @IsOptional() @IsIn(REASONING_EFFORTS) LLM_REASONING_EFFORT?: ReasoningEffort;

  /**
   * The start-up provider check: `models` (GET /models), `completion` (a 1-token completion, for
   * providers without a model list) or `off`. Unset: `models`, and `off` under NODE_ENV=test.
   */
  @IsOptional() @IsIn(STARTUP_CHECKS) LLM_STARTUP_CHECK?: StartupCheck;

  /**
   * How long a model call waits for the provider's first response byte (the headers) before it fails
   * as MODEL_TIMEOUT: a hung provider is named within this, far below the run deadline (180 s).
   */
  @IsInt() @Min(1000) @Max(600_000) LLM_FIRST_BYTE_TIMEOUT_MS: number = 30_000;

  /** A JSON object merged into every request body, e.g. {"thinking":{"type":"enabled"}}. */
  @IsOptional() @IsString() LLM_EXTRA_BODY?: string;

  // Per-role output caps (max_tokens). Thinking models count their reasoning in it, hence the room.
  @IsInt() @Min(16) @Max(200_000) LLM_INTENT_ROUTER_MAX_TOKENS: number = 2048;
  @IsInt() @Min(16) @Max(200_000) LLM_SYSTEM_CHAT_MAX_TOKENS: number = 2048;
  @IsInt() @Min(16) @Max(200_000) LLM_KNOWLEDGE_ANSWER_MAX_TOKENS: number = 4096;
  @IsInt() @Min(16) @Max(200_000) LLM_KNOWLEDGE_GUARD_MAX_TOKENS: number = 4096;
  @IsInt() @Min(16) @Max(200_000) LLM_DIAGNOSIS_AGENT_MAX_TOKENS: number = 8192;
  @IsInt() @Min(16) @Max(200_000) LLM_EVIDENCE_REPAIR_MAX_TOKENS: number = 8192;
  @IsInt() @Min(16) @Max(200_000) LLM_SEMANTIC_GUARD_MAX_TOKENS: number = 4096;
}

/** LLM_EXTRA_BODY: a JSON object without the fields the gateway sets itself. */
export function parseExtraBody(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigValidationError(['LLM_EXTRA_BODY must be a JSON object (it is not valid JSON)']);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigValidationError(['LLM_EXTRA_BODY must be a JSON object']);
  }
  const reserved = Object.keys(value).filter((key) => RESERVED_BODY_KEYS.includes(key));
  if (reserved.length > 0) {
    throw new ConfigValidationError([
      `LLM_EXTRA_BODY must not set ${reserved.join(', ')} (the service sets these itself)`,
    ]);
  }
  return value as Record<string, unknown>;
}

export function loadLlmConfig(source: Record<string, string | undefined> = process.env) {
  const env = validateEnv(LlmEnv, source);
  const maxTokens: Record<PromptRole, number> = {
    'intent-router': env.LLM_INTENT_ROUTER_MAX_TOKENS,
    'system-chat': env.LLM_SYSTEM_CHAT_MAX_TOKENS,
    'knowledge-answer': env.LLM_KNOWLEDGE_ANSWER_MAX_TOKENS,
    'knowledge-guard': env.LLM_KNOWLEDGE_GUARD_MAX_TOKENS,
    'diagnosis-agent': env.LLM_DIAGNOSIS_AGENT_MAX_TOKENS,
    'evidence-repair': env.LLM_EVIDENCE_REPAIR_MAX_TOKENS,
    'semantic-guard': env.LLM_SEMANTIC_GUARD_MAX_TOKENS,
  };
  return {
    baseUrl: env.LLM_BASE_URL,
    apiKey: env.LLM_API_KEY,
    model: env.LLM_MODEL,
    promptsDir: env.PROMPTS_DIR,
    temperature: env.LLM_TEMPERATURE,
    reasoningEffort: env.LLM_REASONING_EFFORT,
    extraBody: parseExtraBody(env.LLM_EXTRA_BODY),
    startupCheck: env.LLM_STARTUP_CHECK ?? (source.NODE_ENV === 'test' ? 'off' : 'models'),
    firstByteTimeoutMs: env.LLM_FIRST_BYTE_TIMEOUT_MS,
    maxTokens,
  };
}

export const llmConfig = registerAs('llm', () => loadLlmConfig());
export type LlmConfig = ConfigType<typeof llmConfig>;
