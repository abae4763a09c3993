import type { RunPosition, SessionPosition } from '../repositories/run.repository';

/** Session, run and document ids: what the ids of the service and of its clients look like. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Keyset cursors of the paged lists: opaque to clients, base64url of `[epoch ms, id]` — the last row's
 * position in the list's (time DESC, id DESC) order. Anything a previous page did not issue decodes to
 * null, and the endpoint answers 400.
 */
export function encodePosition(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.getTime(), id])).toString('base64url');
}

export function decodePosition(cursor: string): { at: Date; id: string } | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [millis, id] = value as unknown[];
  if (typeof millis !== 'number' || !Number.isSafeInteger(millis) || millis < 0) return null;
  if (typeof id !== 'string' || !ID.test(id)) return null;
  const at = new Date(millis);
  return Number.isNaN(at.getTime()) ? null : { at, id };
}

export function encodeSessionCursor({ updatedAt, sessionId }: SessionPosition): string {
  return encodePosition(updatedAt, sessionId);
}

/** The session-list cursor a previous page issued, or null for anything else. */
export function decodeSessionCursor(cursor: string): SessionPosition | null {
  const position = decodePosition(cursor);
  return position && { updatedAt: position.at, sessionId: position.id };
}

export function encodeRunCursor({ createdAt, runId }: RunPosition): string {
  return encodePosition(createdAt, runId);
}

/** The run-list cursor a previous page issued, or null for anything else. */
export function decodeRunCursor(cursor: string): RunPosition | null {
  const position = decodePosition(cursor);
  return position && { createdAt: position.at, runId: position.id };
}

/** The 400 message of a cursor that does not decode. */
export const BAD_CURSOR = 'cursor is not one this endpoint issued: pass a next_cursor unchanged';
