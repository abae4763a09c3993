import type { ToolProjection } from '@app/harness';
import { clip } from '../projection/redaction';
import { KnowledgeHit } from './knowledge-search.port';

export interface KnowledgeRawResponse {
  /** The KNOWLEDGE_BACKEND kind that answered. */
  backend: string;
  query: string;
  hits: KnowledgeHit[];
}

export interface RagProjectionLimits {
  maxEvidence: number;
  maxExcerptChars: number;
  maxTotalChars: number;
}

/**
 * RagResultProjector: exact excerpts (cut, never summarised), bounded in count, excerpt
 * length and total characters. No scores, chunk ids, traces or full documents reach the agent; the
 * document text is data, never instructions.
 */
export function projectRagResult(raw: KnowledgeRawResponse, limits: RagProjectionLimits): ToolProjection {
  let truncated = raw.hits.length > limits.maxEvidence;
  let total = 0;
  const evidence: Record<string, string>[] = [];
  for (const hit of raw.hits.slice(0, limits.maxEvidence)) {
    const { text, clipped } = clip(hit.content, limits.maxExcerptChars);
    if (total + text.length > limits.maxTotalChars) {
      truncated = true;
      break;
    }
    total += text.length;
    truncated ||= clipped;
    evidence.push({
      document_id: hit.document_id,
      source: hit.source,
      title: hit.title,
      breadcrumb: hit.breadcrumb,
      excerpt: text,
    });
  }
  return {
    evidenceStatus: evidence.length > 0 ? 'EVIDENCE_FOUND' : 'NO_EVIDENCE',
    result: { source_kind: 'KNOWLEDGE_BASE', query: raw.query, evidence, returned_count: evidence.length },
    truncated,
  };
}
