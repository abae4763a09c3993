import { Connection, createConnection } from 'mysql2/promise';
import { RunningApp, startApp } from '../support/app-under-test';
import { chatFetch, TEST_MYSQL } from '../support/test-env';

/** Its own database: the lists' contents are exactly what this spec stored. */
const database = `e2e_documents_pages_${process.pid}`;

interface Page {
  documents: { document_id: string; created_at: string }[];
  limit: number;
  next_cursor: string | null;
}

/** Seven documents; three share one created_at, so only document_id orders them. */
const DOCUMENTS = [
  ['doc-a', '2026-01-01 10:00:00.000', 'INDEXED', 'payment-service'],
  ['doc-b', '2026-01-01 10:00:01.000', 'INDEXED', 'payment-service'],
  ['doc-c', '2026-01-01 10:00:02.500', 'INDEXED', 'order-service'],
  ['doc-d', '2026-01-01 10:00:02.500', 'INDEXED', 'payment-service'],
  ['doc-e', '2026-01-01 10:00:02.500', 'INDEXED', 'payment-service'],
  ['doc-f', '2026-01-01 10:00:03.000', 'FAILED', 'payment-service'],
  ['doc-g', '2026-01-01 10:00:04.000', 'INDEXED', 'payment-service'],
] as const;

describe('documents lists page by cursor', () => {
  let admin: Connection;
  let app: RunningApp;

  async function insert(connection: Connection, [id, createdAt, status, faultSource]: readonly string[]) {
    await connection.query(
      `INSERT INTO knowledge_document (document_id, title, category, fault_source, file_name, stored_path,
         content_type, size_bytes, status, chunk_count, created_at, updated_at)
       VALUES (?, ?, NULL, ?, ?, ?, 'text/markdown', 10, ?, 0, ?, ?)`,
      [id, `Runbook ${id}`, faultSource, `${id}.md`, `/nonexistent/${id}.md`, status, createdAt, createdAt],
    );
  }

  async function page(path: string): Promise<Page> {
    const response = await chatFetch(`${app.baseUrl}${path}`);
    expect(response.status).toBe(200);
    return (await response.json()) as Page;
  }

  async function walk(path: string, limit: number, during?: () => Promise<void>): Promise<string[][]> {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const separator = path.includes('?') ? '&' : '?';
      const current = await page(
        `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(current.limit).toBe(limit);
      expect(current.documents.length).toBeLessThanOrEqual(limit);
      pages.push(current.documents.map((document) => document.document_id));
      cursor = current.next_cursor;
      if (pages.length === 1) await during?.();
    } while (cursor !== null);
    return pages;
  }

  beforeAll(async () => {
    admin = await createConnection({ ...TEST_MYSQL });
    await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    app = await startApp({ DB_NAME: database, DB_MIGRATIONS_RUN: 'true' });
    const connection = await createConnection({ ...TEST_MYSQL, database, timezone: 'Z' });
    try {
      for (const document of DOCUMENTS) await insert(connection, document);
    } finally {
      await connection.end();
    }
  });

  afterAll(async () => {
    await app?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.end();
  });

  it.each([
    [1, [['doc-g'], ['doc-e'], ['doc-d'], ['doc-c'], ['doc-b'], ['doc-a']]],
    [
      2,
      [
        ['doc-g', 'doc-e'],
        ['doc-d', 'doc-c'],
        ['doc-b', 'doc-a'],
      ],
    ],
    [
      4,
      [
        ['doc-g', 'doc-e', 'doc-d', 'doc-c'],
        ['doc-b', 'doc-a'],
      ],
    ],
    [6, [['doc-g', 'doc-e', 'doc-d', 'doc-c', 'doc-b', 'doc-a']]],
    [200, [['doc-g', 'doc-e', 'doc-d', 'doc-c', 'doc-b', 'doc-a']]],
  ])('by status, %i a page: newest first, ties by id, every document once', async (limit, expected) => {
    expect(await walk('/api/documents/status/INDEXED', limit)).toEqual(expected);
  });

  it('by fault source, 2 a page, across statuses', async () => {
    expect(await walk('/api/documents/faultSource/payment-service', 2)).toEqual([
      ['doc-g', 'doc-f'],
      ['doc-e', 'doc-d'],
      ['doc-b', 'doc-a'],
    ]);
  });

  it('keeps its place when a document is uploaded mid-walk (a keyset, not an offset)', async () => {
    const connection = await createConnection({ ...TEST_MYSQL, database, timezone: 'Z' });
    try {
      const pages = await walk('/api/documents/status/FAILED', 1, () =>
        insert(connection, ['doc-h', '2026-01-01 10:00:05.000', 'FAILED', 'cart-service']),
      );
      expect(pages).toEqual([['doc-f']]);
      const first = await page('/api/documents/status/FAILED?limit=1');
      expect(first.documents.map((document) => document.document_id)).toEqual(['doc-h']);
      expect(first.next_cursor).not.toBeNull();
      const second = await page(
        `/api/documents/status/FAILED?limit=1&cursor=${encodeURIComponent(first.next_cursor!)}`,
      );
      expect(second.documents.map((document) => document.document_id)).toEqual(['doc-f']);
      expect(second.next_cursor).toBeNull();
    } finally {
      await connection.end();
    }
  });

  it('answers the default page size without a limit', async () => {
    const first = await page('/api/documents/status/INDEXED');
    expect(first.limit).toBe(50);
    expect(first.next_cursor).toBeNull();
  });

  const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each([
    ['a limit of 0', '/api/documents/status/INDEXED?limit=0', /limit must not be less than 1/],
    ['a limit over 200', '/api/documents/status/INDEXED?limit=201', /limit must not be greater than 200/],
    ['a limit that is not a number', '/api/documents/status/INDEXED?limit=ten', /limit must be an integer/],
    ['a cursor it did not issue', '/api/documents/status/INDEXED?cursor=nope', /cursor is not one/],
    [
      'a forged cursor',
      `/api/documents/faultSource/payment-service?cursor=${forged([1, "x' OR '1"])}`,
      /cursor is not one/,
    ],
    ['an over-long cursor', `/api/documents/status/INDEXED?cursor=${'a'.repeat(201)}`, /cursor/],
  ])('answers 400 for %s', async (_name, path, message) => {
    const response = await chatFetch(`${app.baseUrl}${path}`);
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toMatch(message);
  });
});
