import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  NotFoundException,
  PayloadTooLargeException,
} from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { DOCUMENT_STATUSES, DocumentStatus } from '@app/contracts';
import {
  DocumentPage,
  DocumentPosition,
  KnowledgeChunk,
  KnowledgeDocument,
  KnowledgeRepository,
} from '@app/trace';
import { toolsConfig, ToolsConfig } from '../config/tools.config';
import { chunkDocument } from '../knowledge/markdown-chunker';
import { decodeDocumentCursor, encodeDocumentCursor } from './document-cursor';
import { KnowledgeSearchPort } from '../knowledge/knowledge-search.port';

const TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
};

export interface UploadedFile {
  originalname: string;
  buffer: Buffer;
  size: number;
}

export interface DocumentMetadata {
  /** Only for seeding known documents (the demo); uploads always get a generated id. */
  documentId?: string;
  title?: string;
  category?: string;
  faultSource?: string;
}

export interface DocumentListPage {
  documents: KnowledgeDocument[];
  limit: number;
  nextCursor: string | null;
}

/** Runbook ingestion: validated text, original kept under a generated name, chunks in MySQL, index refreshed. */
@Injectable()
export class DocumentsService {
  private readonly directory: string;

  constructor(
    private readonly knowledge: KnowledgeRepository,
    private readonly search: KnowledgeSearchPort,
    @Inject(toolsConfig.KEY) private readonly config: ToolsConfig,
  ) {
    this.directory = resolve(config.documents.directory);
  }

  async ingest(file: UploadedFile | undefined, metadata: DocumentMetadata): Promise<KnowledgeDocument> {
    if (!file) throw new BadRequestException("a file is required (multipart field 'file')");
    if (file.size > this.config.documents.maxBytes) {
      throw new PayloadTooLargeException(`the file is larger than ${this.config.documents.maxBytes} bytes`);
    }
    const extension = extname(file.originalname).toLowerCase();
    const contentType = TYPES[extension];
    if (!contentType)
      throw new BadRequestException(
        'only Markdown (.md, .markdown) and plain text (.txt) files are accepted',
      );
    const text = decodeText(file.buffer);
    const fileName = safeFileName(file.originalname);
    const title = (metadata.title ?? basename(fileName, extname(fileName))).trim();
    if (!title) throw new BadRequestException('title must not be empty');

    const documentId = metadata.documentId ?? `doc-${randomUUID()}`;
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(documentId)) throw new BadRequestException('invalid document id');
    const contentSha256 = createHash('sha256').update(file.buffer).digest('hex');
    const existing = await this.knowledge.findByContentHash(contentSha256);
    if (existing) throw duplicate(existing);
    const storedPath = join(this.directory, `${documentId}${extension}`);
    await mkdir(this.directory, { recursive: true });
    await writeFile(storedPath, file.buffer, { flag: 'wx' });
    let document: KnowledgeDocument;
    try {
      document = await this.knowledge.saveDocument(
        {
          documentId,
          title: title.slice(0, 255),
          category: metadata.category ?? null,
          faultSource: metadata.faultSource ?? null,
          fileName,
          storedPath,
          contentType,
          sizeBytes: file.size,
          contentSha256,
          // py-rag ingests on its own side; until then the document is stored but not searchable there.
          status: this.search.backend === 'embedded' ? 'INDEXED' : 'PENDING',
        },
        chunkDocument(title, text).map((chunk) => ({
          chunkIndex: chunk.index,
          breadcrumb: chunk.breadcrumb.slice(0, 512),
          content: chunk.content,
        })),
      );
    } catch (error) {
      await rm(storedPath, { force: true });
      // The unique index decides a race between two uploads of the same bytes: the loser gets the same 409.
      const winner = isDuplicateKey(error) ? await this.knowledge.findByContentHash(contentSha256) : null;
      throw winner ? duplicate(winner) : error;
    }
    await this.search.refresh();
    return document;
  }

  async get(documentId: string): Promise<KnowledgeDocument> {
    return (await this.knowledge.findDocument(documentId)) ?? notFound(documentId);
  }

  /** The document and its chunks as stored in the service database (the same on every replica). */
  async content(documentId: string): Promise<{ document: KnowledgeDocument; chunks: KnowledgeChunk[] }> {
    const [entry] = await this.knowledge.chunksOf([documentId]);
    return entry ?? notFound(documentId);
  }

  /** One page of the documents with a status, newest first; `cursor` is a previous page's next_cursor. */
  pageByStatus(status: string, limit: number, cursor: string | undefined): Promise<DocumentListPage> {
    if (!(DOCUMENT_STATUSES as readonly string[]).includes(status)) {
      throw new BadRequestException(`status must be one of ${DOCUMENT_STATUSES.join(', ')}`);
    }
    return this.listPage(limit, cursor, (after) =>
      this.knowledge.pageByStatus(status as DocumentStatus, limit, after),
    );
  }

  /** One page of the documents about a fault source, newest first. */
  pageByFaultSource(
    faultSource: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<DocumentListPage> {
    return this.listPage(limit, cursor, (after) =>
      this.knowledge.pageByFaultSource(faultSource, limit, after),
    );
  }

  private async listPage(
    limit: number,
    cursor: string | undefined,
    read: (after: DocumentPosition | null) => Promise<DocumentPage>,
  ): Promise<DocumentListPage> {
    const after = cursor === undefined ? null : decodeDocumentCursor(cursor);
    if (cursor !== undefined && after === null)
      throw new BadRequestException('cursor is not one this endpoint issued: pass a next_cursor unchanged');
    const { documents, next } = await read(after);
    return { documents, limit, nextCursor: next ? encodeDocumentCursor(next) : null };
  }

  /** Removes metadata, chunks and the original; the embedded index drops it before this returns. */
  async delete(documentId: string): Promise<void> {
    const document = (await this.knowledge.findDocument(documentId)) ?? notFound(documentId);
    await this.knowledge.deleteDocument(documentId);
    if (resolve(document.storedPath).startsWith(`${this.directory}/`))
      await rm(document.storedPath, { force: true });
    await this.search.refresh();
  }
}

/** 409 naming the stored document, so the uploader can open or delete it instead. */
function duplicate(existing: KnowledgeDocument): ConflictException {
  return new ConflictException(
    `this content is already stored as document ${existing.documentId} ("${existing.title}"); delete it first to replace it`,
  );
}

function isDuplicateKey(error: unknown): boolean {
  const driverError = (error as { driverError?: { code?: unknown } } | null)?.driverError;
  return driverError?.code === 'ER_DUP_ENTRY';
}

function notFound(documentId: string): never {
  throw new NotFoundException(`document ${documentId.slice(0, 80)} not found`);
}

function decodeText(buffer: Buffer): string {
  if (buffer.length === 0) throw new BadRequestException('the file is empty');
  if (buffer.includes(0)) throw new BadRequestException('the file is not text (it contains NUL bytes)');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  } catch {
    throw new BadRequestException('the file is not UTF-8 text');
  }
}

/** Keeps only a display name: no directories, no control or path characters. */
/**
 * What of a file name is kept: letters, combining marks and digits of any script, and `. _ - space`.
 * Everything else (path separators, control characters, bidi overrides, zero-width and other format
 * characters, the U+FFFD of undecodable bytes) becomes `_`.
 */
const UNSAFE_FILE_NAME_CHARACTER = /[^\p{L}\p{M}\p{N}._\- ]/gu;
const MAX_FILE_NAME_CODE_POINTS = 200;

/** The stored display name of an upload: its last path segment, allowlisted, cut by code points from the end (the extension stays). */
export function safeFileName(original: string): string {
  const cleaned = basename(original.normalize('NFC').replace(/\\/g, '/')).replace(
    UNSAFE_FILE_NAME_CHARACTER,
    '_',
  );
  const name = [...cleaned].slice(-MAX_FILE_NAME_CODE_POINTS).join('');
  return name || 'document.txt';
}
