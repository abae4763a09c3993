import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { KnowledgeChunkEntity } from '../entities/knowledge-chunk.entity';
import { DocumentStatus, KnowledgeDocumentEntity } from '../entities/knowledge-document.entity';

export type KnowledgeDocument = KnowledgeDocumentEntity;
export type KnowledgeChunk = KnowledgeChunkEntity;
export type NewKnowledgeDocument = Omit<KnowledgeDocumentEntity, 'createdAt' | 'updatedAt' | 'chunkCount'>;
export type NewKnowledgeChunk = Pick<KnowledgeChunkEntity, 'chunkIndex' | 'breadcrumb' | 'content'>;

/** Knowledge documents and their chunks; MySQL is the source of truth every search index is built from. */
@Injectable()
export class KnowledgeRepository {
  constructor(
    @InjectRepository(KnowledgeDocumentEntity)
    private readonly documents: Repository<KnowledgeDocumentEntity>,
    @InjectRepository(KnowledgeChunkEntity) private readonly chunks: Repository<KnowledgeChunkEntity>,
  ) {}

  /** The document and all its chunks in one transaction: a search never sees half a document. */
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
    });
    return (await this.findDocument(document.documentId))!;
  }

  findDocument(documentId: string): Promise<KnowledgeDocument | null> {
    return this.documents.findOneBy({ documentId });
  }

  findByStatus(status: DocumentStatus): Promise<KnowledgeDocument[]> {
    return this.documents.find({ where: { status }, order: { createdAt: 'DESC' } });
  }

  findByFaultSource(faultSource: string): Promise<KnowledgeDocument[]> {
    return this.documents.find({ where: { faultSource }, order: { createdAt: 'DESC' } });
  }

  findByTitle(title: string): Promise<KnowledgeDocument | null> {
    return this.documents.findOneBy({ title });
  }

  /** Id and version of every searchable document: what an index compares itself against. */
  async listIndexedVersions(): Promise<Map<string, number>> {
    const rows = await this.documents.find({
      select: { documentId: true, updatedAt: true },
      where: { status: 'INDEXED' },
    });
    return new Map(rows.map((row) => [row.documentId, row.updatedAt.getTime()]));
  }

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

  /** Deletes the document and (by cascade) its chunks; returns whether it existed. */
  async deleteDocument(documentId: string): Promise<boolean> {
    const result = await this.documents.delete({ documentId });
    return (result.affected ?? 0) > 0;
  }
}
