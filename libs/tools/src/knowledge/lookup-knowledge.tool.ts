import { z } from 'zod';
import type { HarnessToolDefinition } from '@app/harness';
import { postProcessKnowledge } from './knowledge-evidence-post-processor';
import { KnowledgeSearchPort } from './knowledge-search.port';
import { KnowledgeRawResponse, projectRagResult } from './rag-result-projector';
import type { LookupKnowledgeConfig } from './lookup-knowledge.config';
import { LOOKUP_KNOWLEDGE_FAILURE_CODES } from './lookup-knowledge.codes';

/**
 * Also the chat's query limit: a KNOWLEDGE_QUERY passes the user's query to this tool unchanged, so a
 * query the chat accepts must never fail here as INVALID_ARGUMENTS.
 */
export const MAX_QUERY_CHARS = 4000;

export const lookupKnowledgeSchema = z.object({
  query: z.string().trim().min(1).max(MAX_QUERY_CHARS).describe('The question or keywords to look up.'),
});
export type LookupKnowledgeArgs = z.infer<typeof lookupKnowledgeSchema>;

/** The tool description (docs/sources.md): what it is for, its input, and what it is not for; nothing about the retrieval internals. */
export const LOOKUP_KNOWLEDGE_DESCRIPTION = [
  'Look up documents, API notes, error codes and troubleshooting runbooks in the internal knowledge base.',
  'For stable background knowledge; not for live logs, metrics or database state.',
  'Input query: the question or keywords to look up.',
  '查询内部知识库中的文档、接口说明、错误码和排障手册。适用于稳定背景知识，不用于查询实时日志、指标或数据库状态。输入 query：需要查询的问题或关键词。',
].join(' ');

/** The lookup_knowledge evidence tool: search port -> post-processor -> RagResultProjector. */
export function lookupKnowledgeTool(
  search: KnowledgeSearchPort,
  limits: LookupKnowledgeConfig,
): HarnessToolDefinition<LookupKnowledgeArgs, KnowledgeRawResponse> {
  return {
    name: 'lookup_knowledge',
    description: LOOKUP_KNOWLEDGE_DESCRIPTION,
    schema: lookupKnowledgeSchema,
    readOnly: true,
    failureCodes: LOOKUP_KNOWLEDGE_FAILURE_CODES,
    countedList: 'evidence',
    async execute(args, signal) {
      // Candidates beyond return-n leave room for the dedupe; all of them stay in the raw response.
      const hits = await search.search(args.query, limits.maxEvidence * 3, signal);
      return { backend: search.backend, query: args.query, hits };
    },
    project: (raw) =>
      projectRagResult({ ...raw, hits: postProcessKnowledge(raw.hits, limits.maxEvidence) }, limits),
    summarizeArgs: (args) => ({ query_chars: args.query.length }),
    label: '知识库 / knowledge base',
    evidenceOf: (result) => ({
      source_type: 'KNOWLEDGE',
      source: 'knowledge base',
      scope: `query: ${String(result.query ?? '')}`,
      values: result.evidence ?? [],
      demo: false,
    }),
  };
}
