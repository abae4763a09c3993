import { decodePosition, encodePosition } from '@app/trace';
import type { DocumentPosition } from '@app/trace';

/** Opaque to clients: the keyset cursor of every paged list, of `[created_at, document_id]`. */
export function encodeDocumentCursor({ createdAt, documentId }: DocumentPosition): string {
  return encodePosition(createdAt, documentId);
}

/** The position a previous page issued, or null for anything else (the caller answers 400). */
export function decodeDocumentCursor(cursor: string): DocumentPosition | null {
  const position = decodePosition(cursor);
  return position && { createdAt: position.at, documentId: position.id };
}
