import type { SessionPosition } from '../repositories/run.repository';

const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Opaque to clients: base64url of `[updated_at epoch ms, session_id]`. */
export function encodeSessionCursor({ updatedAt, sessionId }: SessionPosition): string {
  return Buffer.from(JSON.stringify([updatedAt.getTime(), sessionId])).toString('base64url');
}

/** The cursor a previous page issued, or null for anything else (the caller answers 400). */
export function decodeSessionCursor(cursor: string): SessionPosition | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [millis, sessionId] = value as unknown[];
  if (typeof millis !== 'number' || !Number.isSafeInteger(millis) || millis < 0) return null;
  if (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)) return null;
  const updatedAt = new Date(millis);
  return Number.isNaN(updatedAt.getTime()) ? null : { updatedAt, sessionId };
}
