import { ConfigType, registerAs } from '@nestjs/config';
import { IsString, IsUrl, MinLength } from 'class-validator';
import { validateEnv } from '@app/config';

/** Any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, the stub server). */
export class LlmEnv {
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  LLM_BASE_URL: string = 'http://127.0.0.1:4010/v1';

  @IsString() @MinLength(1) LLM_API_KEY: string = 'stub-key';
  @IsString() @MinLength(1) LLM_MODEL: string = 'deepseek-chat';

  /** Directory of the role prompts (`<role>.md`). */
  @IsString() @MinLength(1) PROMPTS_DIR: string = 'prompts';
}

export const llmConfig = registerAs('llm', () => {
  const env = validateEnv(LlmEnv);
  return {
    baseUrl: env.LLM_BASE_URL,
    apiKey: env.LLM_API_KEY,
    model: env.LLM_MODEL,
    promptsDir: env.PROMPTS_DIR,
  };
});
export type LlmConfig = ConfigType<typeof llmConfig>;
