import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import {
  DOCUMENT_PAGE_DEFAULT_LIMIT,
  DOCUMENT_PAGE_MAX_LIMIT,
  DOCUMENT_STATUSES,
  DocumentStatus,
  KnowledgeDocumentContent,
  KnowledgeDocumentPage,
  KnowledgeDocumentView,
} from '@app/contracts';
import type { KnowledgeChunk, KnowledgeDocument } from '@app/trace';
import type { DocumentListPage } from './documents.service';

export class UploadDocumentDto {
  @ApiProperty({ maxLength: 255 })
  @IsString()
  @Length(1, 255)
  title!: string;

  @ApiPropertyOptional({ maxLength: 64 })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  category?: string;

  @ApiPropertyOptional({
    maxLength: 128,
    description: 'The system or fault class the runbook is about, e.g. payment-service.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  @Matches(/^[\w.:\- \u4e00-\u9fff]+$/, {
    message: 'fault_source may contain letters, digits, spaces and . _ : -',
  })
  fault_source?: string;
}

export class SimpleUploadDto {
  @ApiPropertyOptional({ maxLength: 64 })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  category?: string;
}

export class DocumentDto implements KnowledgeDocumentView {
  @ApiProperty() document_id!: string;
  @ApiProperty() title!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) category!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) fault_source!: string | null;
  @ApiProperty() file_name!: string;
  @ApiProperty() content_type!: string;
  @ApiProperty() size_bytes!: number;
  @ApiProperty({ enum: DOCUMENT_STATUSES }) status!: DocumentStatus;
  @ApiProperty() chunk_count!: number;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;

  static of(document: KnowledgeDocument): DocumentDto {
    return {
      document_id: document.documentId,
      title: document.title,
      category: document.category,
      fault_source: document.faultSource,
      file_name: document.fileName,
      content_type: document.contentType,
      size_bytes: document.sizeBytes,
      status: document.status,
      chunk_count: document.chunkCount,
      created_at: document.createdAt.toISOString(),
      updated_at: document.updatedAt.toISOString(),
    };
  }
}

/** A documents list pages by cursor: a page costs the same however many documents there are. */
export class DocumentPageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: DOCUMENT_PAGE_MAX_LIMIT, default: DOCUMENT_PAGE_DEFAULT_LIMIT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(DOCUMENT_PAGE_MAX_LIMIT)
  limit?: number;

  @ApiPropertyOptional({
    maxLength: 200,
    description: 'The `next_cursor` of the previous page; omitted for the first (newest) page',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class DocumentPageDto implements KnowledgeDocumentPage {
  @ApiProperty({ type: [DocumentDto], description: 'Newest first (created_at, then document_id)' })
  documents!: DocumentDto[];
  @ApiProperty() limit!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Pass as `cursor` for the next (older) page; null on the last page',
  })
  next_cursor!: string | null;

  static of(page: DocumentListPage): DocumentPageDto {
    return {
      documents: page.documents.map((document) => DocumentDto.of(document)),
      limit: page.limit,
      next_cursor: page.nextCursor,
    };
  }
}

export class DocumentChunkDto {
  @ApiProperty() chunk_index!: number;
  @ApiProperty({ description: 'Heading path of the chunk, e.g. "Payment runbook > Symptoms"' })
  breadcrumb!: string;
  @ApiProperty() content!: string;
}

export class DocumentContentDto implements KnowledgeDocumentContent {
  @ApiProperty({ type: DocumentDto }) document!: DocumentDto;
  @ApiProperty({ type: [DocumentChunkDto] }) chunks!: DocumentChunkDto[];

  static of(document: KnowledgeDocument, chunks: KnowledgeChunk[]): DocumentContentDto {
    return {
      document: DocumentDto.of(document),
      chunks: chunks.map((chunk) => ({
        chunk_index: chunk.chunkIndex,
        breadcrumb: chunk.breadcrumb,
        content: chunk.content,
      })),
    };
  }
}
