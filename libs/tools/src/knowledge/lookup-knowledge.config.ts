import { ConfigType, registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { EnvSection, validateEnv } from '@app/config';

/** lookup_knowledge's projection limits (the key names keep the HARNESS_ prefix they were published with). */
@EnvSection('tools', 'lookup_knowledge')
export class LookupKnowledgeEnv {
  @IsInt() @Min(1) @Max(50) HARNESS_RAG_MAX_EVIDENCE: number = 5;
  @IsInt() @Min(50) @Max(20_000) HARNESS_RAG_MAX_EXCERPT_CHARS: number = 800;
  @IsInt() @Min(100) @Max(200_000) HARNESS_RAG_MAX_TOTAL_CHARS: number = 4000;
}

export const lookupKnowledgeConfig = registerAs('lookupKnowledge', () => {
  const env = validateEnv(LookupKnowledgeEnv);
  return {
    maxEvidence: env.HARNESS_RAG_MAX_EVIDENCE,
    maxExcerptChars: env.HARNESS_RAG_MAX_EXCERPT_CHARS,
    maxTotalChars: env.HARNESS_RAG_MAX_TOTAL_CHARS,
  };
});
export type LookupKnowledgeConfig = ConfigType<typeof lookupKnowledgeConfig>;
