export const DOCUMENT_STATUSES = ['PENDING', 'INDEXED', 'FAILED'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/** One knowledge-base document as `/api/documents` returns it. */
export interface KnowledgeDocumentView {
  document_id: string;
  title: string;
  category: string | null;
  fault_source: string | null;
  file_name: string;
  content_type: string;
  size_bytes: number;
  status: DocumentStatus;
  chunk_count: number;
  created_at: string;
  updated_at: string;
}

/** The documents lists (`/api/documents/status/:status`, `/api/documents/faultSource/:faultSource`): a page, newest first. */
export interface KnowledgeDocumentPage {
  documents: KnowledgeDocumentView[];
  limit: number;
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

/** The largest `limit` of a documents page, and the one used when none is given. */
export const DOCUMENT_PAGE_MAX_LIMIT = 200;
export const DOCUMENT_PAGE_DEFAULT_LIMIT = 50;

/** `GET /api/documents/:docId/chunks`: what the knowledge base searches for one document, chunk by chunk. */
export interface KnowledgeDocumentContent {
  document: KnowledgeDocumentView;
  chunks: { chunk_index: number; breadcrumb: string; content: string }[];
}
