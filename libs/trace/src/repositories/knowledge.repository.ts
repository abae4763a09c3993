import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { KnowledgeChunkEntity } from '../entities/knowledge-chunk.entity';
import type { DocumentStatus } from '@app/contracts';
import { KnowledgeDocumentEntity } from '../entities/knowledge-document.entity';

export type KnowledgeDocument = KnowledgeDocumentEntity;
export type KnowledgeChunk = KnowledgeChunkEntity;
export type NewKnowledgeDocument = Omit<KnowledgeDocumentEntity, 'createdAt' | 'updatedAt' | 'chunkCount'>;
export type NewKnowledgeChunk = Pick<KnowledgeChunkEntity, 'chunkIndex' | 'breadcrumb' | 'content'>;

/** Searchable documents with their chunk texts, as an index build reads them. */
export interface IndexSourcePage {
  last: string | null;
  documents: {
    documentId: string;
    title: string;
    chunks: { chunkId: string; breadcrumb: string; content: string }[];
  }[];
}

/** Where a documents page ended: the list is ordered by (created_at, document_id), newest first. */
export interface DocumentPosition {
  createdAt: Date;
  documentId: string;
}

export interface DocumentPage {
  documents: KnowledgeDocument[];
  /** Where the next page starts; null on the last page. */
  next: DocumentPosition | null;
}

/** Documents changed after a version, and the version they bring an index to. */
export interface KnowledgeChanges {
  version: number;
  documentIds: string[];
}

/** A chunk's text with its document's title and file name: what a search returns for one hit. */
export interface KnowledgeChunkText {
  chunkId: string;
  documentId: string;
  title: string;
  fileName: string;
  breadcrumb: string;
  content: string;
}

/** Knowledge documents and their chunks; MySQL is the source of truth every search index is built from. */
@Injectable()
export class KnowledgeRepository {
  constructor(
    @InjectRepository(KnowledgeDocumentEntity)
    private readonly documents: Repository<KnowledgeDocumentEntity>,
    @InjectRepository(KnowledgeChunkEntity) private readonly chunks: Repository<KnowledgeChunkEntity>,
  ) {}

  /**
   * The document, all its chunks and its change record in one transaction: a search never sees half a
   * document, and an index that has seen a version has seen every change up to it.
   */
  async saveDocument(
    document: NewKnowledgeDocument,
    chunks: NewKnowledgeChunk[],
  ): Promise<KnowledgeDocument> {
    await this.documents.manager.transaction(async (manager) => {
      await manager.insert(KnowledgeDocumentEntity, { ...document, chunkCount: chunks.length });
      if (chunks.length > 0) {
        await manager.insert(
          KnowledgeChunkEntity,
          chunks.map((chunk) => ({
            ...chunk,
            documentId: document.documentId,
            chunkId: `${document.documentId}#${chunk.chunkIndex}`,
          })),
        );
      }
      await recordChange(manager, document.documentId);
    });
    return (await this.findDocument(document.documentId))!;
  }

  findDocument(documentId: string): Promise<KnowledgeDocument | null> {
    return this.documents.findOneBy({ documentId });
  }

  /** One page of the documents with this status, newest first (keyset on created_at, document_id). */
  pageByStatus(status: DocumentStatus, limit: number, after: DocumentPosition | null): Promise<DocumentPage> {
    return this.page('status', 'idx_knowledge_document_status_created', status, limit, after);
  }

  /** One page of the documents about this fault source, newest first (keyset on created_at, document_id). */
  pageByFaultSource(
    faultSource: string,
    limit: number,
    after: DocumentPosition | null,
  ): Promise<DocumentPage> {
    return this.page(
      'fault_source',
      'idx_knowledge_document_fault_source_created',
      faultSource,
      limit,
      after,
    );
  }

  private async page(
    column: 'status' | 'fault_source',
    index: string,
    value: string,
    limit: number,
    after: DocumentPosition | null,
  ): Promise<DocumentPage> {
    // The index hint and the redundant `created_at <= ?` make the page a range that starts at the
    // cursor, whatever MariaDB would otherwise guess for a popular value (as for the session list).
    const query = this.documents
      .createQueryBuilder('d')
      .useIndex(index)
      .where(`d.${column} = :value`, { value })
      .orderBy('d.created_at', 'DESC')
      .addOrderBy('d.document_id', 'DESC')
      .limit(limit + 1);
    if (after) {
      query
        .andWhere('d.created_at <= :at', { at: after.createdAt })
        .andWhere('(d.created_at < :at OR (d.created_at = :at AND d.document_id < :id))', {
          at: after.createdAt,
          id: after.documentId,
        });
    }
    const rows = await query.getMany();
    const documents = rows.slice(0, limit);
    const last = documents[documents.length - 1];
    return {
      documents,
      next: rows.length > limit ? { createdAt: last.createdAt, documentId: last.documentId } : null,
    };
  }

  findByContentHash(contentSha256: string): Promise<KnowledgeDocument | null> {
    return this.documents.findOneBy({ contentSha256 });
  }

  findByTitle(title: string): Promise<KnowledgeDocument | null> {
    return this.documents.findOneBy({ title });
  }

  /** The knowledge base's version: one primary-key read, what an index checks before each search. */
  async indexVersion(): Promise<number> {
    const rows = (await this.documents.manager.query(
      'SELECT version FROM knowledge_index_version WHERE id = 1',
    )) as { version: string | number }[];
    return rows.length === 0 ? 0 : Number(rows[0].version);
  }

  /** The documents changed after `version`, in order (versions commit in order: see recordChange). */
  async changesSince(version: number): Promise<KnowledgeChanges> {
    const rows = (await this.documents.manager.query(
      'SELECT version, document_id FROM knowledge_change WHERE version > ? ORDER BY version',
      [version],
    )) as { version: string | number; document_id: string }[];
    return {
      version: rows.length === 0 ? version : Number(rows[rows.length - 1].version),
      documentIds: [...new Set(rows.map((row) => row.document_id))],
    };
  }

  /**
   * One page of the searchable documents with the texts an index is built from, in id order after
   * `afterDocumentId` ('' for the first): how an index is built from scratch. Plain rows, not entities:
   * a build reads every chunk once. `last` is the cursor for the next page, null after the last one.
   */
  async indexedDocumentsAfter(afterDocumentId: string, limit: number): Promise<IndexSourcePage> {
    const ids = (
      (await this.documents.manager.query(
        `SELECT document_id FROM knowledge_document
          WHERE status = 'INDEXED' AND document_id > ? ORDER BY document_id LIMIT ?`,
        [afterDocumentId, limit],
      )) as { document_id: string }[]
    ).map((row) => row.document_id);
    if (ids.length === 0) return { last: null, documents: [] };
    const rows = (await this.documents.manager.query(
      `SELECT d.document_id, d.title, c.chunk_id, c.breadcrumb, c.content
         FROM knowledge_document d JOIN knowledge_chunk c ON c.document_id = d.document_id
        WHERE d.document_id IN (${ids.map(() => '?').join(', ')}) AND d.status = 'INDEXED'
        ORDER BY d.document_id, c.chunk_index`,
      ids,
    )) as Record<'document_id' | 'title' | 'chunk_id' | 'breadcrumb' | 'content', string>[];
    const documents: IndexSourcePage['documents'] = [];
    for (const row of rows) {
      let current = documents[documents.length - 1];
      if (current?.documentId !== row.document_id) {
        current = { documentId: row.document_id, title: row.title, chunks: [] };
        documents.push(current);
      }
      current.chunks.push({ chunkId: row.chunk_id, breadcrumb: row.breadcrumb, content: row.content });
    }
    return { last: ids[ids.length - 1], documents };
  }

  /** The documents (whatever their status) and their chunks; ids that no longer exist are left out. */
  async chunksOf(
    documentIds: string[],
  ): Promise<{ document: KnowledgeDocument; chunks: KnowledgeChunk[] }[]> {
    if (documentIds.length === 0) return [];
    const documents = await this.documents.findBy({ documentId: In(documentIds) });
    const chunks = await this.chunks.find({
      where: { documentId: In(documentIds) },
      order: { chunkIndex: 'ASC' },
    });
    return documents.map((document) => ({
      document,
      chunks: chunks.filter((chunk) => chunk.documentId === document.documentId),
    }));
  }

  /** The texts of these chunks (a search's top k), in no particular order; ids that no longer exist are left out. */
  async chunkTexts(chunkIds: string[]): Promise<KnowledgeChunkText[]> {
    if (chunkIds.length === 0) return [];
    const rows = (await this.chunks.manager.query(
      `SELECT c.chunk_id, c.document_id, d.title, d.file_name, c.breadcrumb, c.content
         FROM knowledge_chunk c JOIN knowledge_document d ON d.document_id = c.document_id
        WHERE c.chunk_id IN (${chunkIds.map(() => '?').join(', ')})`,
      chunkIds,
    )) as Record<'chunk_id' | 'document_id' | 'title' | 'file_name' | 'breadcrumb' | 'content', string>[];
    return rows.map((row) => ({
      chunkId: row.chunk_id,
      documentId: row.document_id,
      title: row.title,
      fileName: row.file_name,
      breadcrumb: row.breadcrumb,
      content: row.content,
    }));
  }

  /** Deletes the document and (by cascade) its chunks, recording the change; returns whether it existed. */
  deleteDocument(documentId: string): Promise<boolean> {
    return this.documents.manager.transaction(async (manager) => {
      const result = await manager.delete(KnowledgeDocumentEntity, { documentId });
      if ((result.affected ?? 0) === 0) return false;
      await recordChange(manager, documentId);
      return true;
    });
  }
}

/**
 * Bumps the version and logs the document under it, inside the caller's transaction. The version row
 * stays locked until commit, so versions commit in order and an index that has read version v has
 * every change up to v in its next read of the log.
 */
async function recordChange(manager: EntityManager, documentId: string): Promise<void> {
  await manager.query(
    'INSERT INTO knowledge_index_version (id, version) VALUES (1, 1) ON DUPLICATE KEY UPDATE version = version + 1',
  );
  const rows = (await manager.query('SELECT version FROM knowledge_index_version WHERE id = 1')) as {
    version: string | number;
  }[];
  await manager.query('INSERT INTO knowledge_change (version, document_id) VALUES (?, ?)', [
    rows[0].version,
    documentId,
  ]);
}
