/** One retrieved chunk as a search backend returns it. Scores stay in the raw response, never reach the agent. */
export interface KnowledgeHit {
  document_id: string;
  chunk_id: string;
  title: string;
  source: string;
  breadcrumb: string;
  content: string;
  score: number;
}

/** The knowledge search port (docs/architecture.md "Knowledge base (embedded search)"); adapters are chosen by KNOWLEDGE_BACKEND. */
export abstract class KnowledgeSearchPort {
  abstract readonly backend: 'embedded' | 'pyrag';
  abstract search(query: string, limit: number, signal: AbortSignal): Promise<KnowledgeHit[]>;
  /** Makes a changed or deleted document visible to searches at once (embedded); a no-op where the backend owns ingestion. */
  abstract refresh(): Promise<void>;
}
