import { z } from 'zod';
import { ToolFailure } from '@app/harness';
import { KnowledgeHit, KnowledgeIndexReadiness, KnowledgeSearchPort } from '../../knowledge-search.port';
import type { LookupKnowledgeFailureCode } from '../../lookup-knowledge.codes';

export interface PyRagOptions {
  baseUrl: string;
  mode: 'hybrid' | 'semantic';
  timeoutMs: number;
}

const evidenceSchema = z.object({
  document_id: z.string(),
  chunk_id: z.string().optional(),
  title: z.string().default(''),
  source: z.string().default(''),
  breadcrumb: z.string().default(''),
  content: z.string().optional(),
  text: z.string().optional(),
  score: z.number().default(0),
});
const searchResponseSchema = z.object({
  evidence_status: z.enum(['evidence_found', 'no_evidence']),
  evidence: z.array(evidenceSchema).default([]),
});

/**
 * HTTP client of the py-rag knowledge service (`POST {base}/api/v1/search`). `no_evidence` is an empty
 * result, not an error. One attempt per call (no hidden retries), a timeout, and failures mapped to
 * safe Tool ERROR codes. py-rag owns ingestion and its index (rebuilt on its side).
 */
export class PyRagKnowledgeSearch extends KnowledgeSearchPort {
  readonly backend = 'pyrag' as const;

  constructor(private readonly options: PyRagOptions) {
    super();
  }

  async search(query: string, limit: number, signal: AbortSignal): Promise<KnowledgeHit[]> {
    const body = await this.request('/api/v1/search', signal, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, mode: this.options.mode, top_k: limit }),
    });
    const parsed = searchResponseSchema.safeParse(body);
    if (!parsed.success)
      throw new ToolFailure<LookupKnowledgeFailureCode>(
        'KNOWLEDGE_BAD_RESPONSE',
        'The knowledge service answered in an unexpected format.',
      );
    if (parsed.data.evidence_status === 'no_evidence') return [];
    return parsed.data.evidence.slice(0, limit).map((item, index) => ({
      document_id: item.document_id,
      chunk_id: item.chunk_id ?? `${item.document_id}#${index}`,
      title: item.title,
      source: item.source,
      breadcrumb: item.breadcrumb,
      content: item.content ?? item.text ?? '',
      score: item.score,
    }));
  }

  /** The embedded index has nothing to refresh here: py-rag rebuilds its own collections. */
  async refresh(): Promise<void> {}

  readiness(): KnowledgeIndexReadiness {
    return { state: 'external' };
  }

  async loaded(): Promise<void> {}

  private async request(path: string, signal: AbortSignal, init: RequestInit): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    let response: Response;
    try {
      response = await fetch(new URL(path, this.options.baseUrl), {
        ...init,
        signal: AbortSignal.any([signal, timeout]),
      });
    } catch {
      if (signal.aborted) throw signal.reason;
      if (timeout.aborted)
        throw new ToolFailure<LookupKnowledgeFailureCode>(
          'KNOWLEDGE_TIMEOUT',
          'The knowledge service did not answer in time.',
        );
      throw new ToolFailure<LookupKnowledgeFailureCode>(
        'KNOWLEDGE_UNAVAILABLE',
        'The knowledge service is unavailable.',
      );
    }
    if (!response.ok)
      throw new ToolFailure<LookupKnowledgeFailureCode>(
        'KNOWLEDGE_UNAVAILABLE',
        'The knowledge service is unavailable.',
      );
    try {
      return await response.json();
    } catch {
      throw new ToolFailure<LookupKnowledgeFailureCode>(
        'KNOWLEDGE_BAD_RESPONSE',
        'The knowledge service answered in an unexpected format.',
      );
    }
  }
}
