import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ToolFailure } from '@app/harness';
import { describeDatabaseError, KnowledgeRepository } from '@app/trace';
import { Bm25Index } from '../../bm25-index';
import { KnowledgeHit, KnowledgeIndexReadiness, KnowledgeSearchPort } from '../../knowledge-search.port';
import type { LookupKnowledgeFailureCode } from '../../lookup-knowledge.codes';
import { tokenize } from '../../text-tokenizer';

/** Title, breadcrumb, content: the weights the knowledge base has always ranked with. */
const FIELD_BOOSTS = [2, 1.5, 1];
const LOAD_PAGE_DOCUMENTS = 200;

/**
 * In-process BM25 over the chunks in MySQL (docs/knowledge.md). The index holds term statistics only;
 * the texts stay in MySQL and a search reads its top k chunks by id.
 *
 * Start-up does not wait for the index: it loads in the background while readiness says "loading" and
 * lookups fail with KNOWLEDGE_INDEX_LOADING (never "nothing found"). A failed load is logged with its
 * cause, shown in readiness, and started again by the next lookup or upload.
 *
 * Once loaded, every search first reads the knowledge base's version (one primary-key row) and, when it
 * moved, applies only the documents in the change log since the version it has: uploads and deletes
 * made through any app instance are seen by the next search on every instance. A base older than the
 * index (e.g. restored) is loaded again from scratch.
 */
@Injectable()
export class EmbeddedKnowledgeSearch
  extends KnowledgeSearchPort
  implements OnApplicationBootstrap, OnApplicationShutdown
{
  readonly backend = 'embedded' as const;
  private readonly logger = new Logger('KnowledgeIndex');
  private index = newIndex();
  /** Chunk keys per indexed document, to drop a document's chunks when it changes. */
  private chunkKeys = new Map<string, string[]>();
  /** The knowledge-base version the index reflects; null until it is first loaded. */
  private version: number | null = null;
  private state: KnowledgeIndexReadiness = { state: 'loading', since: new Date().toISOString() };
  private loading: Promise<void> | null = null;
  private closing = false;
  private running: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;

  constructor(private readonly knowledge: KnowledgeRepository) {
    super();
  }

  onApplicationBootstrap(): void {
    void this.load();
  }

  onApplicationShutdown(): void {
    this.closing = true;
  }

  readiness(): KnowledgeIndexReadiness {
    return this.state;
  }

  async loaded(): Promise<void> {
    await this.loading;
  }

  async search(query: string, limit: number): Promise<KnowledgeHit[]> {
    this.requireLoaded();
    await this.refresh();
    const hits = this.index.search(query, limit);
    const rows = await this.knowledge.chunkTexts(hits.map((hit) => hit.key));
    const byId = new Map(rows.map((row) => [row.chunkId, row]));
    // A chunk deleted between the ranking and the read is left out; the next search no longer ranks it.
    return hits.flatMap((hit) => {
      const row = byId.get(hit.key);
      if (!row) return [];
      return [
        {
          document_id: row.documentId,
          chunk_id: row.chunkId,
          title: row.title,
          source: row.fileName,
          breadcrumb: row.breadcrumb,
          content: row.content,
          score: hit.score,
        },
      ];
    });
  }

  /**
   * Brings the index up to the version MySQL has now. One sync at a time; callers arriving while one
   * runs share the single next one, which starts after they called and so sees what they wrote. Before
   * the first load has ended there is nothing to bring up to date: that load reads what is committed
   * when it reaches it, and the change log covers the rest.
   */
  refresh(): Promise<void> {
    if (this.version === null) {
      if (this.state.state === 'failed') void this.load();
      return Promise.resolve();
    }
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

  /** Throws the named failure a lookup gets before the index is loaded; starts a load after a failed one. */
  private requireLoaded(): void {
    if (this.version !== null) return;
    if (this.state.state === 'failed') {
      void this.load();
      // The cause stays in the log and /health: a tool result reaches the model and the trace.
      throw new ToolFailure<LookupKnowledgeFailureCode>(
        'KNOWLEDGE_INDEX_FAILED',
        'The knowledge index could not be loaded; the knowledge base was not searched. A new load has started.',
      );
    }
    throw new ToolFailure<LookupKnowledgeFailureCode>(
      'KNOWLEDGE_INDEX_LOADING',
      'The knowledge index is still loading; the knowledge base was not searched.',
    );
  }

  /** Starts the first load (or a new one after a failure); a load under way is shared. */
  private load(): Promise<void> {
    if (this.loading) return this.loading;
    const started = performance.now();
    this.state = { state: 'loading', since: new Date().toISOString() };
    this.logger.log('knowledge index loading from MySQL');
    this.loading = this.rebuild()
      .then(() => {
        const footprint = this.index.footprint();
        const loadMs = Math.round(performance.now() - started);
        this.state = {
          state: 'ready',
          since: new Date().toISOString(),
          documents: this.chunkKeys.size,
          chunks: footprint.entries,
          terms: footprint.terms,
          load_ms: loadMs,
        };
        this.logger.log(
          `knowledge index ready: ${this.chunkKeys.size} documents, ${footprint.entries} chunks, ` +
            `${footprint.terms} terms in ${loadMs} ms`,
        );
      })
      .catch((error: unknown) => {
        if (this.closing) return;
        // Log-safe: the database's error class and code, or the error's name; never a statement.
        const cause = describeDatabaseError(error);
        this.state = { state: 'failed', since: new Date().toISOString(), cause };
        this.logger.error(
          `knowledge index failed to load: ${cause}; lookup_knowledge answers KNOWLEDGE_INDEX_FAILED until a load succeeds (the next lookup or upload starts one)`,
        );
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  private async sync(): Promise<void> {
    const known = this.version!;
    const version = await this.knowledge.indexVersion();
    if (version < known) {
      this.logger.warn(
        `the knowledge base version (${version}) is older than the index (${known}): loading it again`,
      );
      return this.rebuild();
    }
    if (version === known) return;
    const changes = await this.knowledge.changesSince(known);
    await this.apply(changes.documentIds);
    this.version = changes.version;
  }

  /** Replaces each changed document's chunks with what MySQL has now (nothing, if it is gone). */
  private async apply(documentIds: string[]): Promise<void> {
    const current = await this.knowledge.chunksOf(documentIds);
    const removed: string[] = [];
    for (const documentId of documentIds) {
      removed.push(...(this.chunkKeys.get(documentId) ?? []));
      this.chunkKeys.delete(documentId);
    }
    this.index.removeAll(removed);
    for (const { document, chunks } of current) {
      if (document.status !== 'INDEXED') continue;
      addDocument(this.index, this.chunkKeys, document, chunks);
    }
  }

  /** Builds a fresh index page by page and swaps it in; changes after its version follow on the next sync. */
  private async rebuild(): Promise<void> {
    const version = await this.knowledge.indexVersion();
    const index = newIndex();
    const chunkKeys = new Map<string, string[]>();
    for (let after: string | null = ''; after !== null;) {
      if (this.closing) throw new Error('the application is shutting down');
      const page = await this.knowledge.indexedDocumentsAfter(after, LOAD_PAGE_DOCUMENTS);
      for (const document of page.documents) addDocument(index, chunkKeys, document, document.chunks);
      after = page.last;
    }
    this.index = index;
    this.chunkKeys = chunkKeys;
    this.version = version;
  }
}

function newIndex(): Bm25Index {
  return new Bm25Index({ boosts: FIELD_BOOSTS, tokenize });
}

function addDocument(
  index: Bm25Index,
  chunkKeys: Map<string, string[]>,
  document: { documentId: string; title: string },
  chunks: { chunkId: string; breadcrumb: string; content: string }[],
): void {
  for (const chunk of chunks) index.add(chunk.chunkId, [document.title, chunk.breadcrumb, chunk.content]);
  chunkKeys.set(
    document.documentId,
    chunks.map((chunk) => chunk.chunkId),
  );
}
