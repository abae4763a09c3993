import { IsIn, IsInt, IsUrl, Max, Min } from 'class-validator';
import { EnvSection, validateEnv } from '@app/config';
import type { KnowledgeBackendDefinition } from '../../knowledge-backend';
import { PyRagKnowledgeSearch } from './pyrag-knowledge-search';

@EnvSection('tools', 'Knowledge backend: pyrag (py-rag service)')
export class PyRagEnv {
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  PYRAG_BASE_URL: string = 'http://127.0.0.1:8000';

  @IsIn(['hybrid', 'semantic']) PYRAG_SEARCH_MODE: 'hybrid' | 'semantic' = 'hybrid';
  @IsInt() @Min(100) @Max(120_000) PYRAG_TIMEOUT_MS: number = 5000;
}

/** KNOWLEDGE_BACKEND=pyrag: searches go to the py-rag HTTP service, which owns ingestion and its index. */
export const PYRAG_KNOWLEDGE_BACKEND: KnowledgeBackendDefinition = {
  kind: 'pyrag',
  summary:
    'the py-rag HTTP service (`POST {PYRAG_BASE_URL}/api/v1/search`); py-rag owns ingestion, so uploads stay `PENDING` here',
  envClass: PyRagEnv,
  configFix: 'set the PYRAG_* keys',
  configure(source) {
    const env = validateEnv(PyRagEnv, source);
    const options = {
      baseUrl: env.PYRAG_BASE_URL,
      mode: env.PYRAG_SEARCH_MODE,
      timeoutMs: env.PYRAG_TIMEOUT_MS,
    };
    return {
      kind: 'pyrag',
      create: () => new PyRagKnowledgeSearch(options),
      doctorCheck: async () => [
        {
          check: 'knowledge base',
          verdict: 'OK',
          message: `served by py-rag at ${options.baseUrl} (its documents are not counted here)`,
        },
      ],
    };
  },
};
