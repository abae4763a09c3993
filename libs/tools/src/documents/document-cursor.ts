import type { DocumentPosition } from '@app/trace';

const DOCUMENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Opaque to clients: base64url of `[created_at epoch ms, document_id]`. */
export function encodeDocumentCursor({ createdAt, documentId }: DocumentPosition): string {
  return Buffer.from(JSON.stringify([createdAt.getTime(), documentId])).toString('base64url');
}

/** The position a previous page issued, or null for anything else (the caller answers 400). */
export function decodeDocumentCursor(cursor: string): DocumentPosition | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [millis, documentId] = value as unknown[];
  if (typeof millis !== 'number' || !Number.isSafeInteger(millis) || millis < 0) return null;
  if (typeof documentId !== 'string' || !DOCUMENT_ID.test(documentId)) return null;
  const createdAt = new Date(millis);
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, documentId };
}
