import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { DocumentStatus } from '@app/contracts';
import { MILLIS, NOW_MILLIS } from './columns';

/** Uploaded runbook metadata; the original file is kept under the configured documents directory. */
@Entity({ name: 'knowledge_document' })
@Index('idx_knowledge_document_status_created', ['status', 'createdAt', 'documentId'])
@Index('idx_knowledge_document_fault_source_created', ['faultSource', 'createdAt', 'documentId'])
@Index('idx_knowledge_document_content_sha256', ['contentSha256'], { unique: true })
export class KnowledgeDocumentEntity {
  @PrimaryColumn({ name: 'document_id', type: 'varchar', length: 64 })
  documentId!: string;

  @Column({ name: 'title', type: 'varchar', length: 255 })
  title!: string;

  @Column({ name: 'category', type: 'varchar', length: 64, nullable: true })
  category!: string | null;

  @Column({ name: 'fault_source', type: 'varchar', length: 128, nullable: true })
  faultSource!: string | null;

  @Column({ name: 'file_name', type: 'varchar', length: 255 })
  fileName!: string;

  @Column({ name: 'stored_path', type: 'varchar', length: 512 })
  storedPath!: string;

  @Column({ name: 'content_type', type: 'varchar', length: 64 })
  contentType!: string;

  @Column({ name: 'size_bytes', type: 'int', unsigned: true })
  sizeBytes!: number;

  /** SHA-256 (hex) of the uploaded bytes; NULL for documents stored before it was recorded. */
  @Column({
    name: 'content_sha256',
    type: 'char',
    length: 64,
    nullable: true,
    charset: 'ascii',
    collation: 'ascii_bin',
  })
  contentSha256!: string | null;

  @Column({ name: 'status', type: 'varchar', length: 16 })
  status!: DocumentStatus;

  @Column({ name: 'chunk_count', type: 'int', unsigned: true, default: 0 })
  chunkCount!: number;

  @Column({ name: 'created_at', ...MILLIS, default: NOW_MILLIS })
  createdAt!: Date;

  @Column({ name: 'updated_at', ...MILLIS, default: NOW_MILLIS })
  updatedAt!: Date;
}
