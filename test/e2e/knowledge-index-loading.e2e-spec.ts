import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { Connection, createConnection } from 'mysql2/promise';
import { KnowledgeSearchPort } from '../../libs/tools/src/knowledge/knowledge-search.port';
import { RunningApp, startApp } from '../support/app-under-test';
import { lookupKnowledge } from '../support/knowledge-lookup';
import { adminFetch, TEST_MYSQL } from '../support/test-env';

/**
 * The port opens before the knowledge index has loaded. A table lock held by this spec keeps the load
 * waiting (a condition, not a timer) so the loading state can be observed, then released.
 */
const database = `e2e_knowledge_loading_${process.pid}`;
const documentsDir = mkdtempSync(join(tmpdir(), 'superbiz-loading-docs-'));
const ENV = { DB_NAME: database, DB_MIGRATIONS_RUN: 'true', DOCUMENTS_DIR: documentsDir };

type Lookup = {
  evidence_status: string;
  error_code?: string;
  message?: string;
  evidence?: { title: string }[];
};

const lookup = (app: INestApplication, query: string) =>
  lookupKnowledge<Lookup>(app, query, { label: 'loading', timeoutMs: 30_000 });

interface Health {
  status: string;
  info?: Record<string, { status: string; state?: string; chunks?: number }>;
  error?: Record<string, { status: string; state?: string; message?: string; cause?: string }>;
}

async function health(app: RunningApp): Promise<{ status: number; body: Health }> {
  const response = await fetch(`${app.baseUrl}/health`);
  return { status: response.status, body: (await response.json()) as Health };
}

async function until<T>(what: string, probe: () => Promise<T | null>, deadlineMs = 90_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('knowledge index loading in the background', () => {
  let admin: Connection;
  let locker: Connection;

  beforeAll(async () => {
    admin = await createConnection({ ...TEST_MYSQL });
    await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    // A first start migrates the database and stores one runbook; the specs restart on top of it.
    const seeding = await startApp(ENV);
    try {
      const form = new FormData();
      form.append(
        'file',
        new Blob(
          ['# HikariPool exhausted\n\nRaise maximumPoolSize; look for slow queries holding connections.'],
          {
            type: 'text/markdown',
          },
        ),
        'hikari.md',
      );
      form.append('title', 'HikariPool exhaustion runbook');
      const uploaded = await adminFetch(`${seeding.baseUrl}/api/documents/upload`, {
        method: 'POST',
        body: form,
      });
      expect(uploaded.status).toBe(201);
    } finally {
      await seeding.close();
    }
    locker = await createConnection({ ...TEST_MYSQL, database });
  });

  afterAll(async () => {
    await locker?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.end();
  });

  it('serves at once, says "knowledge index loading" until ready, and a lookup meanwhile gets KNOWLEDGE_INDEX_LOADING', async () => {
    await locker.query('LOCK TABLES knowledge_index_version WRITE');
    let app: RunningApp | null = null;
    try {
      // The lock outlasts any wait below: the load cannot end before UNLOCK.
      app = await startApp({ ...ENV, DB_LOCK_WAIT_TIMEOUT_SECONDS: '120' }, { awaitKnowledge: false });
      const loading = await health(app);
      expect(loading.status).toBe(503);
      expect(loading.body.error?.knowledge).toMatchObject({
        status: 'down',
        state: 'loading',
        message: 'knowledge index loading',
      });
      expect(loading.body.error?.mysql).toBeUndefined();
      const live = await fetch(`${app.baseUrl}/health/live`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: 'ok' });

      const during = await lookup(app.app, 'HikariPool exhausted');
      expect(during).toMatchObject({ evidence_status: 'ERROR', error_code: 'KNOWLEDGE_INDEX_LOADING' });
      expect(during.message).toMatch(/not searched/);

      await locker.query('UNLOCK TABLES');
      await app.app.get(KnowledgeSearchPort).loaded();
      const ready = await health(app);
      expect(ready.status).toBe(200);
      expect(ready.body.info?.knowledge).toMatchObject({ status: 'up', state: 'ready', chunks: 1 });
      const after = await lookup(app.app, 'HikariPool exhausted');
      expect(after.evidence_status).not.toBe('ERROR');
      expect(after.evidence?.map((item) => item.title)).toEqual(['HikariPool exhaustion runbook']);
    } finally {
      await locker.query('UNLOCK TABLES');
      await app?.close();
    }
  });

  it('names a failed load in /health, answers KNOWLEDGE_INDEX_FAILED, and a later lookup loads it again', async () => {
    await locker.query('LOCK TABLES knowledge_index_version WRITE');
    let app: RunningApp | null = null;
    try {
      app = await startApp({ ...ENV, DB_LOCK_WAIT_TIMEOUT_SECONDS: '1' }, { awaitKnowledge: false });
      const running = app;
      const failed = await until('a failed load in /health', async () => {
        const current = await health(running);
        return current.body.error?.knowledge?.state === 'failed' ? current : null;
      });
      expect(failed.status).toBe(503);
      expect(failed.body.error?.knowledge?.cause).toMatch(/^lock wait timeout \(ER_LOCK_WAIT_TIMEOUT/);
      expect(failed.body.error?.knowledge?.message).toMatch(
        /^knowledge index failed to load: lock wait timeout/,
      );
      expect((await fetch(`${app.baseUrl}/health/live`)).status).toBe(200);

      const answer = await lookup(app.app, 'HikariPool exhausted');
      expect(answer).toMatchObject({ evidence_status: 'ERROR', error_code: 'KNOWLEDGE_INDEX_FAILED' });
      expect(answer.message).toMatch(/not searched/);
      expect(answer.message).not.toMatch(/ER_LOCK_WAIT_TIMEOUT|SELECT|knowledge_index_version/);

      await locker.query('UNLOCK TABLES');
      // The lookup above started a new load; it (or the one the next lookup starts) ends ready.
      const knowledge = app.app.get(KnowledgeSearchPort);
      const ready = await until('a loaded index', async () => {
        await knowledge.loaded();
        if (knowledge.readiness().state === 'ready') return true;
        await lookup(running.app, 'HikariPool exhausted');
        return null;
      });
      expect(ready).toBe(true);
      expect((await health(app)).status).toBe(200);
      const after = await lookup(app.app, 'HikariPool exhausted');
      expect(after.evidence?.map((item) => item.title)).toEqual(['HikariPool exhaustion runbook']);
    } finally {
      await locker.query('UNLOCK TABLES');
      await app?.close();
    }
  });
});
