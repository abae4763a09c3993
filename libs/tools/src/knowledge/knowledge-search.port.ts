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

/** Whether lookups can be answered: what readiness (`/health`) reports under `knowledge`. */
export type KnowledgeIndexReadiness =
  | { state: 'loading'; since: string }
  | { state: 'ready'; since: string; documents: number; chunks: number; terms: number; load_ms: number }
  | { state: 'failed'; since: string; cause: string }
  /** py-rag owns its index; its own health is its own. */
  | { state: 'external' };

/** The knowledge search port (docs/architecture.md "Knowledge base (embedded search)"); adapters are chosen by KNOWLEDGE_BACKEND. */
export abstract class KnowledgeSearchPort {
  /** The KNOWLEDGE_BACKEND kind that built it (docs/backends.md). */
  abstract readonly backend: string;
  abstract search(query: string, limit: number, signal: AbortSignal): Promise<KnowledgeHit[]>;
  /** Makes a changed or deleted document visible to searches at once (embedded); a no-op where the backend owns ingestion. */
  abstract refresh(): Promise<void>;
  abstract readiness(): KnowledgeIndexReadiness;
  /** Resolves once a load under way (if any) has ended, ready or failed: for start-up scripts and specs. */
  abstract loaded(): Promise<void>;
}
