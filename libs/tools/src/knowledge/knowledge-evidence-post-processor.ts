import { KnowledgeHit } from './knowledge-search.port';

/**
 * Chunk-level dedupe by evidence key (the chunk id, and identical text from another chunk) in rank
 * order, then return-n. Deterministic; the order of the backend is kept.
 */
export function postProcessKnowledge(hits: readonly KnowledgeHit[], returnN: number): KnowledgeHit[] {
  const seenChunks = new Set<string>();
  const seenTexts = new Set<string>();
  const kept: KnowledgeHit[] = [];
  for (const hit of hits) {
    const text = hit.content.replace(/\s+/g, ' ').trim();
    if (seenChunks.has(hit.chunk_id) || seenTexts.has(text)) continue;
    seenChunks.add(hit.chunk_id);
    seenTexts.add(text);
    kept.push(hit);
    if (kept.length >= returnN) break;
  }
  return kept;
}
