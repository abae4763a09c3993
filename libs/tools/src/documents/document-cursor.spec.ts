import { decodeDocumentCursor, encodeDocumentCursor } from './document-cursor';

const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('document cursor', () => {
  it.each([
    ['a generated id', new Date('2026-12-05T10:00:00.123Z'), 'doc-7a1b2c3d-0000-4000-8000-000000000000'],
    ['a seeded id', new Date(0), 'payment_timeout-1'],
  ])('round-trips %s', (_name, createdAt, documentId) => {
    expect(decodeDocumentCursor(encodeDocumentCursor({ createdAt, documentId }))).toEqual({
      createdAt,
      documentId,
    });
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'a+b/c=='],
    ['too long', 'a'.repeat(201)],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['an object', encoded({ at: 1, id: 'd' })],
    ['three parts', encoded([1, 'd', 2])],
    ['a string time', encoded(['1', 'd'])],
    ['a negative time', encoded([-1, 'd'])],
    ['a fractional time', encoded([1.5, 'd'])],
    ['a time beyond Date', encoded([9e15, 'd'])],
    ['an id with a quote', encoded([1, "d' OR 1=1"])],
    ['an empty id', encoded([1, ''])],
    ['an id over 64 characters', encoded([1, 'd'.repeat(65)])],
  ])('refuses %s', (_name, cursor) => {
    expect(decodeDocumentCursor(cursor)).toBeNull();
  });
});
