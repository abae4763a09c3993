import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { RunningApp, startApp } from '../support/app-under-test';
import { lookupKnowledge } from '../support/knowledge-lookup';
import { adminFetch, chatFetch } from '../support/test-env';

const documentsDir = mkdtempSync(join(tmpdir(), 'superbiz-docs-'));
const ENV = { DOCUMENTS_DIR: documentsDir, DOCUMENTS_MAX_BYTES: '8192' };
const runbook = (name: string) => readFileSync(join('demo/runbooks', name));

async function upload(
  baseUrl: string,
  path: string,
  file: { name: string; content: Buffer | string; type?: string } | null,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  if (file) form.append('file', new Blob([file.content], { type: file.type ?? 'text/markdown' }), file.name);
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  const response = await adminFetch(`${baseUrl}${path}`, { method: 'POST', body: form });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

type Lookup = {
  evidence_status: string;
  evidence: { document_id: string; title: string; excerpt: string }[];
};

const lookup = (app: INestApplication, query: string) =>
  lookupKnowledge<Lookup>(app, query, { label: 'knowledge', timeoutMs: 10_000 });

describe('lookup_knowledge (embedded BM25) and the documents API', () => {
  let first: RunningApp;
  let second: RunningApp;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    first = await startApp(ENV);
    second = await startApp(ENV);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('uploads a Chinese and an English runbook with metadata, keeping originals under generated names', async () => {
    const zh = await upload(
      first.baseUrl,
      '/api/documents/upload',
      { name: 'payment-timeout-zh.md', content: runbook('payment-timeout-zh.md') },
      { title: '支付超时排查手册', category: 'runbook', fault_source: 'payment-service' },
    );
    const en = await upload(first.baseUrl, '/api/upload', {
      name: 'connection-pool-exhaustion-en.md',
      content: runbook('connection-pool-exhaustion-en.md'),
    });
    expect(zh.status).toBe(201);
    expect(zh.body).toMatchObject({
      title: '支付超时排查手册',
      category: 'runbook',
      fault_source: 'payment-service',
      status: 'INDEXED',
      content_type: 'text/markdown',
      file_name: 'payment-timeout-zh.md',
    });
    expect(en.body).toMatchObject({ title: 'connection-pool-exhaustion-en', status: 'INDEXED' });
    expect(Number(zh.body.chunk_count)).toBeGreaterThan(2);
    ids.zh = String(zh.body.document_id);
    ids.en = String(en.body.document_id);
    expect(readdirSync(documentsDir).sort()).toEqual([`${ids.en}.md`, `${ids.zh}.md`].sort());
  });

  it('finds them through the tool boundary, in Chinese and in English, from either app instance', async () => {
    const zh = await lookup(first.app, '支付超时 连接池');
    expect(zh.evidence_status).toBe('EVIDENCE_FOUND');
    expect(zh.evidence[0]).toMatchObject({ document_id: ids.zh, title: '支付超时排查手册' });
    const en = await lookup(second.app, 'HikariPool connection is not available');
    expect(en.evidence[0]).toMatchObject({ document_id: ids.en });
    expect(JSON.stringify(en)).not.toMatch(/score|chunk_id/);
  });

  it('lists documents by status and fault source and returns one by id', async () => {
    const byStatus = (await (await chatFetch(`${first.baseUrl}/api/documents/status/INDEXED`)).json()) as {
      documents: { document_id: string }[];
      next_cursor: string | null;
    };
    expect(byStatus.documents.map((d) => d.document_id)).toEqual(expect.arrayContaining([ids.zh, ids.en]));
    expect(byStatus.next_cursor).toBeNull();
    const byFault = (await (
      await chatFetch(`${first.baseUrl}/api/documents/faultSource/payment-service`)
    ).json()) as { documents: { document_id: string }[] };
    expect(byFault.documents.map((d) => d.document_id)).toEqual([ids.zh]);
    const one = await chatFetch(`${second.baseUrl}/api/documents/${ids.en}`);
    expect(one.status).toBe(200);
    expect((await chatFetch(`${first.baseUrl}/api/documents/doc-unknown`)).status).toBe(404);
    const badStatus = await chatFetch(`${first.baseUrl}/api/documents/status/BOGUS`);
    expect(badStatus.status).toBe(400);
    expect(JSON.stringify(await badStatus.json())).toContain(
      'status must be one of PENDING, INDEXED, FAILED',
    );
  });

  it('opens one document as the chunks the knowledge base searches, from either instance', async () => {
    // The other instance reads the same chunks from MySQL: the original file lives on one disk only.
    const response = await chatFetch(`${second.baseUrl}/api/documents/${ids.en}/chunks`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      document: { document_id: string; chunk_count: number };
      chunks: { chunk_index: number; breadcrumb: string; content: string }[];
    };
    expect(body.document.document_id).toBe(ids.en);
    expect(body.chunks).toHaveLength(body.document.chunk_count);
    expect(body.chunks.map((chunk) => chunk.chunk_index)).toEqual(body.chunks.map((_, index) => index));
    expect(body.chunks.every((chunk) => chunk.breadcrumb.length > 0 && chunk.content.length > 0)).toBe(true);
    expect((await chatFetch(`${first.baseUrl}/api/documents/doc-unknown/chunks`)).status).toBe(404);
    expect((await adminFetch(`${first.baseUrl}/api/documents/${ids.en}/chunks`)).status).toBe(403);
  });

  it('finds it again after a restart (the index is rebuilt from MySQL)', async () => {
    const restarted = await startApp(ENV);
    try {
      expect((await lookup(restarted.app, '支付超时')).evidence[0]).toMatchObject({ document_id: ids.zh });
    } finally {
      await restarted.close();
    }
  });

  it.each([
    [
      'a PDF',
      { name: 'runbook.pdf', content: '%PDF-1.4' },
      { title: 't' },
      400,
      'only Markdown (.md, .markdown) and plain text (.txt) files are accepted',
    ],
    [
      'binary content',
      { name: 'x.md', content: Buffer.from([0x23, 0x00, 0x01]) },
      { title: 't' },
      400,
      'the file is not text (it contains NUL bytes)',
    ],
    [
      'invalid UTF-8',
      { name: 'x.txt', content: Buffer.from([0xff, 0xfe, 0x41]) },
      { title: 't' },
      400,
      'the file is not UTF-8 text',
    ],
    ['an empty file', { name: 'x.md', content: '' }, { title: 't' }, 400, 'the file is empty'],
    ['no file', null, { title: 't' }, 400, "a file is required (multipart field 'file')"],
    [
      'no title',
      { name: 'x.md', content: '# x' },
      {},
      400,
      'title must be longer than or equal to 1 characters',
    ],
    [
      'an unknown field',
      { name: 'x.md', content: '# x' },
      { title: 't', owner: 'me' },
      400,
      'property owner should not exist',
    ],
    [
      'too many fields',
      { name: 'x.md', content: '# x' },
      { title: 't', category: 'c', fault_source: 'f', a: '1', b: '2' },
      400,
      'Too many fields: at most 3 form fields besides the file: title, category, fault_source (fixed limit)',
    ],
    [
      'a field value over 1 KiB',
      { name: 'x.md', content: '# x' },
      { title: 't'.repeat(2000) },
      400,
      "Field value too long: a field value is longer than 1024 bytes (fixed limit) (field 'title')",
    ],
    [
      'a file over the size limit',
      { name: 'big.md', content: 'x'.repeat(9000) },
      { title: 't' },
      413,
      'File too large: the file is larger than 8192 bytes (DOCUMENTS_MAX_BYTES)',
    ],
  ])('refuses %s with a clear error', async (_name, file, fields, status, message) => {
    const before = readdirSync(documentsDir).length;
    const response = await upload(first.baseUrl, '/api/documents/upload', file, fields);
    expect(response.status).toBe(status);
    expect(JSON.stringify(response.body)).toContain(message);
    expect(readdirSync(documentsDir)).toHaveLength(before);
  });

  it('names the file-count limit when a form carries two files', async () => {
    const form = new FormData();
    form.append('file', new Blob(['# one'], { type: 'text/markdown' }), 'one.md');
    form.append('file', new Blob(['# two'], { type: 'text/markdown' }), 'two.md');
    form.append('title', 't');
    const before = readdirSync(documentsDir).length;
    const response = await adminFetch(`${first.baseUrl}/api/upload`, { method: 'POST', body: form });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(
      "Too many files: at most 1 file per upload, in multipart field 'file' (fixed limit)",
    );
    expect(readdirSync(documentsDir)).toHaveLength(before);
  });

  it('answers a re-upload of the same bytes with 409 naming the stored document, and stores nothing', async () => {
    const content = `# Redis failover ${process.pid}-${Date.now()}\nreplica promoted after sentinel quorum`;
    const stored = await upload(
      first.baseUrl,
      '/api/documents/upload',
      { name: 'failover.md', content },
      {
        title: 'Redis failover',
      },
    );
    expect(stored.status).toBe(201);
    const id = String(stored.body.document_id);
    const before = readdirSync(documentsDir).length;
    for (const [baseUrl, path] of [
      [first.baseUrl, '/api/documents/upload'],
      [second.baseUrl, '/api/upload'],
    ]) {
      const again = await upload(
        baseUrl,
        path,
        { name: 'renamed.md', content },
        path === '/api/upload' ? {} : { title: 'Other title' },
      );
      expect(again.status).toBe(409);
      expect(again.body.message).toBe(
        `this content is already stored as document ${id} ("Redis failover"); delete it first to replace it`,
      );
    }
    expect(readdirSync(documentsDir)).toHaveLength(before);
    const different = await upload(first.baseUrl, '/api/upload', {
      name: 'failover.md',
      content: `${content}.`,
    });
    expect(different.status).toBe(201);
    expect(different.body.document_id).not.toBe(id);
    for (const document of [id, String(different.body.document_id)])
      await adminFetch(`${first.baseUrl}/api/documents/${document}`, { method: 'DELETE' });
    const afterDelete = await upload(first.baseUrl, '/api/upload', { name: 'failover.md', content });
    expect(afterDelete.status).toBe(201);
    await adminFetch(`${first.baseUrl}/api/documents/${String(afterDelete.body.document_id)}`, {
      method: 'DELETE',
    });
  });

  it('stores one of two concurrent uploads of the same bytes and answers the other 409 naming it', async () => {
    const content = `# Kafka rebalance ${process.pid}-${Date.now()}\nconsumers stall during a rebalance storm`;
    const before = readdirSync(documentsDir).length;
    const answers = await Promise.all(
      [first.baseUrl, second.baseUrl, first.baseUrl].map((baseUrl) =>
        upload(baseUrl, '/api/upload', { name: 'rebalance.md', content }),
      ),
    );
    const stored = answers.filter((answer) => answer.status === 201);
    expect(stored).toHaveLength(1);
    const id = String(stored[0].body.document_id);
    for (const answer of answers.filter((item) => item !== stored[0])) {
      expect(answer.status).toBe(409);
      expect(answer.body.message).toContain(`already stored as document ${id} ("rebalance")`);
    }
    expect(readdirSync(documentsDir)).toHaveLength(before + 1);
    await adminFetch(`${first.baseUrl}/api/documents/${id}`, { method: 'DELETE' });
  });

  it('lets only a knowledge_admin key upload and delete; a chat key reads only', async () => {
    const form = new FormData();
    form.append('file', new Blob(['# x\nrole check'], { type: 'text/markdown' }), 'role.md');
    form.append('title', 'role check');
    const before = readdirSync(documentsDir).length;
    for (const path of ['/api/documents/upload', '/api/upload']) {
      const refused = await chatFetch(`${first.baseUrl}${path}`, { method: 'POST', body: form });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ message: 'This API key lacks the knowledge_admin role.' });
    }
    expect(readdirSync(documentsDir)).toHaveLength(before);
    const deleted = await chatFetch(`${first.baseUrl}/api/documents/${ids.en}`, { method: 'DELETE' });
    expect(deleted.status).toBe(403);
    expect((await chatFetch(`${first.baseUrl}/api/documents/${ids.en}`)).status).toBe(200);
    expect((await adminFetch(`${first.baseUrl}/api/documents/${ids.en}`)).status).toBe(403);
  });

  it('never lets an uploaded name choose where the file goes', async () => {
    const response = await upload(first.baseUrl, '/api/upload', {
      name: '../../../tmp/evil.md',
      content: '# evil\ntext',
    });
    expect(response.status).toBe(201);
    expect(response.body.file_name).toBe('evil.md');
    expect(readdirSync(documentsDir)).toContain(`${String(response.body.document_id)}.md`);
    await adminFetch(`${first.baseUrl}/api/documents/${String(response.body.document_id)}`, {
      method: 'DELETE',
    });
  });

  it('keeps a Chinese file name as sent (raw UTF-8 in filename=, as browsers send it) through the list', async () => {
    const name = '支付超时 排查手册-v2.md';
    // Distinct bytes: other specs upload this short runbook too, and the same bytes are answered 409.
    const content = `# 支付超时\n先看连接池 ${process.pid}`;
    const response = await upload(first.baseUrl, '/api/upload', { name, content });
    expect(response.status).toBe(201);
    expect(response.body.file_name).toBe(name);
    expect(response.body.title).toBe('支付超时 排查手册-v2');
    const id = String(response.body.document_id);
    const listed = (
      (await (await chatFetch(`${second.baseUrl}/api/documents/status/INDEXED?limit=200`)).json()) as {
        documents: { document_id: string; file_name: string }[];
      }
    ).documents;
    expect(listed.find((document) => document.document_id === id)?.file_name).toBe(name);
    expect(readdirSync(documentsDir)).toContain(`${id}.md`);
    await adminFetch(`${first.baseUrl}/api/documents/${id}`, { method: 'DELETE' });
  });

  it('deletes a document: gone from MySQL, disk and both instances’ indexes at once', async () => {
    expect((await adminFetch(`${second.baseUrl}/api/documents/${ids.zh}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    expect((await chatFetch(`${first.baseUrl}/api/documents/${ids.zh}`)).status).toBe(404);
    expect(readdirSync(documentsDir)).not.toContain(`${ids.zh}.md`);
    for (const app of [first.app, second.app]) {
      const result = await lookup(app, '支付超时排查手册');
      expect(result.evidence.map((e) => e.document_id)).not.toContain(ids.zh);
    }
    expect((await adminFetch(`${first.baseUrl}/api/documents/${ids.zh}`, { method: 'DELETE' })).status).toBe(
      404,
    );
  });

  it('answers NO_EVIDENCE, keeping the query, when nothing matches', async () => {
    await adminFetch(`${first.baseUrl}/api/documents/${ids.en}`, { method: 'DELETE' });
    const result = await lookup(first.app, 'kubernetes etcd quorum');
    expect(result).toMatchObject({
      evidence_status: 'NO_EVIDENCE',
      query: 'kubernetes etcd quorum',
      evidence: [],
      returned_count: 0,
    });
  });
});
