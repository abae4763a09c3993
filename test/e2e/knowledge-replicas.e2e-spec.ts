import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { KnowledgeSearchPort } from '../../libs/tools/src/knowledge/knowledge-search.port';
import { RunningApp, startApp } from '../support/app-under-test';
import { adminFetch, TEST_MYSQL } from '../support/test-env';

const ENV = { DOCUMENTS_DIR: mkdtempSync(join(tmpdir(), 'superbiz-knowledge-replicas-')) };

async function upload(baseUrl: string, name: string, content: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/markdown' }), `${name}.md`);
  form.append('title', name);
  const response = await adminFetch(`${baseUrl}/api/documents/upload`, { method: 'POST', body: form });
  expect(response.status).toBe(201);
  return String(((await response.json()) as { document_id: string }).document_id);
}

async function remove(baseUrl: string, documentId: string): Promise<void> {
  expect((await adminFetch(`${baseUrl}/api/documents/${documentId}`, { method: 'DELETE' })).status).toBe(204);
}

async function found(instance: RunningApp, query: string): Promise<string[]> {
  const hits = await instance.app.get(KnowledgeSearchPort).search(query, 15, new AbortController().signal);
  return [...new Set(hits.map((hit) => hit.document_id))];
}

/** Two app instances on one MySQL: what one uploads or deletes, the next search on the other reflects. */
describe('knowledge index across app instances', () => {
  let first: RunningApp;
  let second: RunningApp;

  beforeAll(async () => {
    first = await startApp(ENV);
    second = await startApp(ENV);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('finds a runbook uploaded on one instance in the very next search on the other', async () => {
    // Warm both indexes first, so what follows is an incremental change, not the start-up build.
    expect(await found(second, 'zookeeper session expiry')).toEqual([]);
    const id = await upload(
      first.baseUrl,
      'zookeeper-expiry',
      '# ZooKeeper\nsession expiry storms after a GC pause',
    );
    expect(await found(second, 'zookeeper session expiry')).toEqual([id]);
    expect(await found(first, 'zookeeper session expiry')).toEqual([id]);
  });

  it('sees every one of many concurrent uploads through both instances, in either instance', async () => {
    const uploads = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        upload(
          i % 2 === 0 ? first.baseUrl : second.baseUrl,
          `shard-${i}`,
          `# shard\nrebalance token shard${i}x`,
        ),
      ),
    );
    for (const [i, id] of uploads.entries()) {
      expect(await found(first, `shard${i}x`)).toEqual([id]);
      expect(await found(second, `shard${i}x`)).toEqual([id]);
    }
    expect((await found(second, 'rebalance')).sort()).toEqual([...uploads].sort());
  });

  it('drops a deleted runbook from the other instance at its next search, keeping the rest', async () => {
    const kept = await upload(
      first.baseUrl,
      'kafka-lag-kept',
      '# Kafka\nconsumer lag grows on partition leader moves',
    );
    const gone = await upload(
      first.baseUrl,
      'kafka-lag-gone',
      '# Kafka\nconsumer lag after a broker restart',
    );
    expect((await found(second, 'consumer lag')).sort()).toEqual([kept, gone].sort());
    await remove(first.baseUrl, gone);
    expect(await found(second, 'consumer lag')).toEqual([kept]);
    expect(await found(second, 'broker restart')).toEqual([]);
  });

  it('records each upload and delete as one change under a new version', async () => {
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      const [[before]] = await connection.query<import('mysql2').RowDataPacket[]>(
        'SELECT version FROM knowledge_index_version WHERE id = 1',
      );
      const id = await upload(second.baseUrl, 'etcd-quorum', '# etcd\nquorum lost after two members left');
      await remove(first.baseUrl, id);
      const [changes] = await connection.query<import('mysql2').RowDataPacket[]>(
        'SELECT version, document_id FROM knowledge_change WHERE version > ? ORDER BY version',
        [before.version],
      );
      expect(changes.map((row) => [Number(row.version), row.document_id])).toEqual([
        [Number(before.version) + 1, id],
        [Number(before.version) + 2, id],
      ]);
      expect(await found(first, 'etcd quorum')).toEqual([]);
    } finally {
      await connection.end();
    }
  });
});
