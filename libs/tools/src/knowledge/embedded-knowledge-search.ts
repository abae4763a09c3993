import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import MiniSearch from 'minisearch';
import { KnowledgeRepository } from '@app/trace';
import { KnowledgeHit, KnowledgeSearchPort } from './knowledge-search.port';
import { tokenize } from './text-tokenizer';

type IndexedChunk = Omit<KnowledgeHit, 'score'>;

/**
 * In-process BM25 (MiniSearch) over the chunks in MySQL. Before every search the index compares its
 * document versions with MySQL and applies the difference, so uploads and deletes made through any app
 * instance are seen by all of them, and a restart simply rebuilds.
 */
@Injectable()
export class EmbeddedKnowledgeSearch extends KnowledgeSearchPort implements OnApplicationBootstrap {
  readonly backend = 'embedded' as const;
  private readonly index = new MiniSearch<IndexedChunk>({
    idField: 'chunk_id',
    fields: ['title', 'breadcrumb', 'content'],
    storeFields: ['document_id', 'chunk_id', 'title', 'source', 'breadcrumb', 'content'],
    tokenize,
    processTerm: (term) => term,
    searchOptions: { boost: { title: 2, breadcrumb: 1.5 }, combineWith: 'OR' },
  });
  private readonly versions = new Map<string, { version: number; chunkIds: string[] }>();
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly knowledge: KnowledgeRepository) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.refresh();
  }

  async search(query: string, limit: number): Promise<KnowledgeHit[]> {
    await this.refresh();
    return this.index
      .search(query)
      .slice(0, limit)
      .map((result) => ({
        document_id: String(result.document_id),
        chunk_id: String(result.chunk_id),
        title: String(result.title),
        source: String(result.source),
        breadcrumb: String(result.breadcrumb),
        content: String(result.content),
        score: result.score,
      }));
  }

  /** Serialised: concurrent searches share one pass instead of racing on the index. */
  refresh(): Promise<void> {
    this.syncing = this.syncing.catch(() => undefined).then(() => this.applyChanges());
    return this.syncing;
  }

  private async applyChanges(): Promise<void> {
    const current = await this.knowledge.listIndexedVersions();
    for (const [documentId, indexed] of this.versions) {
      if (current.get(documentId) !== indexed.version) {
        this.index.discardAll(indexed.chunkIds);
        this.versions.delete(documentId);
      }
    }
    const missing = [...current.keys()].filter((documentId) => !this.versions.has(documentId));
    for (const { document, chunks } of await this.knowledge.chunksOf(missing)) {
      const entries = chunks.map((chunk) => ({
        document_id: document.documentId,
        chunk_id: chunk.chunkId,
        title: document.title,
        source: document.fileName,
        breadcrumb: chunk.breadcrumb,
        content: chunk.content,
      }));
      this.index.addAll(entries);
      this.versions.set(document.documentId, {
        version: document.updatedAt.getTime(),
        chunkIds: entries.map((entry) => entry.chunk_id),
      });
    }
  }
}
