import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { MILLIS, NOW_MILLIS } from './columns';

/** A searchable section of a document. MySQL is the source of truth; search indexes are rebuilt from it. */
@Entity({ name: 'knowledge_chunk' })
@Index('uq_knowledge_chunk_doc_index', ['documentId', 'chunkIndex'], { unique: true })
export class KnowledgeChunkEntity {
  @PrimaryColumn({ name: 'chunk_id', type: 'varchar', length: 96 })
  chunkId!: string;

  @Column({ name: 'document_id', type: 'varchar', length: 64 })
  documentId!: string;

  @Column({ name: 'chunk_index', type: 'int', unsigned: true })
  chunkIndex!: number;

  @Column({ name: 'breadcrumb', type: 'varchar', length: 512 })
  breadcrumb!: string;

  @Column({ name: 'content', type: 'mediumtext' })
  content!: string;

  @Column({ name: 'created_at', ...MILLIS, default: NOW_MILLIS })
  createdAt!: Date;
}
