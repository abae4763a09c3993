import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { KnowledgeRepository } from '@app/trace';
import { Bm25Index } from './bm25-index';
import { KnowledgeHit, KnowledgeSearchPort } from './knowledge-search.port';
import { tokenize } from './text-tokenizer';

type IndexedChunk = Omit<KnowledgeHit, 'score'>;

/** Title, breadcrumb, content: the weights the knowledge base has always ranked with. */
const FIELD_BOOSTS = [2, 1.5, 1];
const REBUILD_PAGE_DOCUMENTS = 200;

/**
 * In-process BM25 over the chunks in MySQL (docs/architecture.md, knowledge base). Before every search
 * the index reads the knowledge base's version (one primary-key row) and, when it moved, applies only
 * the documents in the change log since the version it has: uploads and deletes made through any app
 * instance are seen by the next search on every instance, and neither a search nor an upload re-reads
 * the base. A start (or a base older than the index, e.g. restored) builds it from scratch.
 */
@Injectable()
export class EmbeddedKnowledgeSearch extends KnowledgeSearchPort implements OnApplicationBootstrap {
  readonly backend = 'embedded' as const;
  private index = newIndex();
  /** Chunk keys per indexed document, to drop a document's chunks when it changes. */
  private chunkKeys = new Map<string, string[]>();
  /** The knowledge-base version the index reflects; null until it is first built. */
  private version: number | null = null;
  private running: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;

  constructor(private readonly knowledge: KnowledgeRepository) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.refresh();
  }

  async search(query: string, limit: number): Promise<KnowledgeHit[]> {
    await this.refresh();
    return this.index.search(query, limit).map((hit) => ({ ...hit.payload, score: hit.score }));
  }

  /**
   * Brings the index up to the version MySQL has now. One sync at a time; callers arriving while one
   * runs share the single next one, which starts after they called and so sees what they wrote.
   */
  refresh(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.sync();
      });
    this.queued = next;
    this.running = next;
    return next;
  }

  private async sync(): Promise<void> {
    const version = await this.knowledge.indexVersion();
    if (this.version === null || version < this.version) return this.rebuild(version);
    if (version === this.version) return;
    const changes = await this.knowledge.changesSince(this.version);
    await this.apply(changes.documentIds);
    this.version = changes.version;
  }

  /** Replaces each changed document's chunks with what MySQL has now (nothing, if it is gone). */
  private async apply(documentIds: string[]): Promise<void> {
    const current = await this.knowledge.chunksOf(documentIds);
    for (const documentId of documentIds) {
      for (const key of this.chunkKeys.get(documentId) ?? []) this.index.remove(key);
      this.chunkKeys.delete(documentId);
    }
    for (const { document, chunks } of current) {
      if (document.status !== 'INDEXED') continue;
      addDocument(this.index, this.chunkKeys, document, chunks);
    }
  }

  /** Builds a fresh index page by page and swaps it in; changes after `version` follow on the next sync. */
  private async rebuild(version: number): Promise<void> {
    const index = newIndex();
    const chunkKeys = new Map<string, string[]>();
    for (let after: string | null = ''; after !== null;) {
      const page = await this.knowledge.indexedDocumentsAfter(after, REBUILD_PAGE_DOCUMENTS);
      for (const { document, chunks } of page.documents) addDocument(index, chunkKeys, document, chunks);
      after = page.last;
    }
    this.index = index;
    this.chunkKeys = chunkKeys;
    this.version = version;
  }
}

function newIndex(): Bm25Index<IndexedChunk> {
  return new Bm25Index<IndexedChunk>({ boosts: FIELD_BOOSTS, tokenize });
}

function addDocument(
  index: Bm25Index<IndexedChunk>,
  chunkKeys: Map<string, string[]>,
  document: { documentId: string; title: string; fileName: string },
  chunks: { chunkId: string; breadcrumb: string; content: string }[],
): void {
  for (const chunk of chunks) {
    index.add(chunk.chunkId, [document.title, chunk.breadcrumb, chunk.content], {
      document_id: document.documentId,
      chunk_id: chunk.chunkId,
      title: document.title,
      source: document.fileName,
      breadcrumb: chunk.breadcrumb,
      content: chunk.content,
    });
  }
  chunkKeys.set(
    document.documentId,
    chunks.map((chunk) => chunk.chunkId),
  );
}
