import { createConnection } from 'mysql2/promise';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { PublishedResult } from '@app/trace';
import { ChatSessionEntity } from '../../libs/trace/src/entities/chat-session.entity';
import { DiagnosisRunEntity } from '../../libs/trace/src/entities/diagnosis-run.entity';
import { validateConfiguration } from '../../apps/server/src/config/configuration';
import { RunningApp, startApp, withEnv } from '../support/app-under-test';
import { TEST_MYSQL } from '../support/test-env';
import { scaled } from '../support/test-timeouts';

const EXPECTED_TABLES = [
  'agent_reasoning_audit',
  'agent_step',
  'alert_group',
  'alert_notification',
  'alert_run_hour',
  'chat_session',
  'diagnosis_run',
  'diagnosis_trace_event',
  'knowledge_change',
  'knowledge_chunk',
  'knowledge_document',
  'knowledge_index_version',
  'migrations',
  'notification_delivery',
  'tool_invocation',
];

describe('foundation: boot, migrations, health, config validation', () => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp();
  });

  afterAll(async () => {
    await running?.close();
  });

  it('runs the migrations against the real database at start-up', async () => {
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      const [rows] = await connection.query<import('mysql2').RowDataPacket[]>('SHOW TABLES');
      expect(rows.map((row) => String(Object.values(row)[0])).sort()).toEqual(EXPECTED_TABLES);
      const [indexes] = await connection.query<import('mysql2').RowDataPacket[]>(
        "SHOW INDEX FROM diagnosis_run WHERE Key_name = 'idx_diagnosis_run_session_created'",
      );
      expect(indexes.map((row) => row.Column_name)).toEqual(['session_id', 'created_at']);
    } finally {
      await connection.end();
    }
  });

  it('stores and returns JSON columns as objects', async () => {
    const dataSource = running.app.get(DataSource);
    const published: PublishedResult = {
      user_query: 'why did order-42 time out? «支付»',
      published_conclusion: null,
      scope: 'order_db',
      limitations: ['logs after 10:00 only', 'quote " and \\ backslash'],
      source_documents: [{ document_id: 'doc-1', title: 'Payment timeouts' }],
    };
    await dataSource.getRepository(ChatSessionEntity).insert({ sessionId: 's-json' });
    const runs = dataSource.getRepository(DiagnosisRunEntity);
    await runs.insert([
      { runId: 'r-json', sessionId: 's-json', query: 'q', status: 'SUCCESS', publishedResult: published },
      { runId: 'r-json-null', sessionId: 's-json', query: 'q', status: 'FAILED', publishedResult: null },
    ]);

    const stored = await runs.findOneByOrFail({ runId: 'r-json' });
    expect(typeof stored.publishedResult).toBe('object');
    expect(stored.publishedResult).toEqual(published);
    expect((await runs.findOneByOrFail({ runId: 'r-json-null' })).publishedResult).toBeNull();

    // Stored as real JSON, so the database's own JSON validity check refuses anything else.
    const [raw] = await dataSource.query<{ valid: number | string }[]>(
      "SELECT JSON_VALID(published_result) AS valid FROM diagnosis_run WHERE run_id = 'r-json'",
    );
    expect(Number(raw.valid)).toBe(1);
    await expect(
      dataSource.query(
        "INSERT INTO diagnosis_run (run_id, session_id, query, status, published_result) VALUES ('r-bad', 's-json', 'q', 'SUCCESS', 'not json')",
      ),
    ).rejects.toThrow();
  });

  it('reports mysql and redis up on /health', async () => {
    const response = await fetch(`${running.baseUrl}/health`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; info: Record<string, { status: string }> };
    expect(body.status).toBe('ok');
    expect(body.info.mysql.status).toBe('up');
    expect(body.info.redis.status).toBe('up');
  });

  it('serves the OpenAPI document', async () => {
    const response = await fetch(`${running.baseUrl}/api/docs-json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toContain('/health');
  });

  it('reports redis down with a clear message when Redis is unreachable, and still serves', async () => {
    const degraded = await startApp({ REDIS_PORT: '1', REDIS_CONNECT_TIMEOUT_MS: '200' });
    try {
      const response = await fetch(`${degraded.baseUrl}/health`);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: Record<string, { status: string; message: string }> };
      expect(body.error.redis.status).toBe('down');
      expect(body.error.redis.message).toMatch(/^Redis is not reachable/);
    } finally {
      await degraded.close();
    }
  });

  it('starts with a business data source down, names it degraded in /health and stays 200', async () => {
    const allowlist = join(mkdtempSync(join(tmpdir(), 'mysql-tools-')), 'mysql-tools.yaml');
    writeFileSync(
      allowlist,
      `harness:
  mysql-tools:
    data-sources:
      shop_down:
        url: mysql://127.0.0.1:1/shop
        username: \${E2E_DOWN_USER}
        password: \${E2E_DOWN_PASSWORD}
        default-schema: shop
        allowed-schemas:
          shop:
            tables:
              orders:
                columns: [id]
`,
    );
    const app = await startApp({
      MYSQL_TOOLS_CONFIG: allowlist,
      E2E_DOWN_USER: 'reader',
      E2E_DOWN_PASSWORD: 'secret',
    });
    type SourceState = { state: string; problems: { kind: string }[] };
    type Body = {
      status: string;
      info: { data_sources: { degraded: string[]; sources: Record<string, SourceState> } };
    };
    try {
      let body: Body | null = null;
      // The start-up check runs beside start-up; a refused port answers at once, so few polls are needed.
      for (let poll = 0; poll < 50; poll += 1) {
        const response = await fetch(`${app.baseUrl}/health`);
        expect(response.status).toBe(200);
        body = (await response.json()) as Body;
        if (body.info.data_sources.sources.shop_down.state !== 'pending') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(body!.status).toBe('ok');
      expect(body!.info.data_sources.degraded).toEqual(['shop_down']);
      expect(body!.info.data_sources.sources.shop_down.problems.map((problem) => problem.kind)).toEqual([
        'UNREACHABLE',
      ]);
      expect(JSON.stringify(body)).not.toContain('secret');
    } finally {
      await app.close();
    }
  });

  it.each([
    ['HARNESS_EVIDENCE_TTL_SECONDS', '5', 'HARNESS_EVIDENCE_TTL_SECONDS must not be less than 60'],
    [
      'HARNESS_RETRY_SEMANTIC_GUARD_MAX_ATTEMPTS',
      '3',
      'HARNESS_RETRY_SEMANTIC_GUARD_MAX_ATTEMPTS must not be greater than 2',
    ],
    ['HARNESS_AGENT_MAX_MODEL_CALLS', 'lots', 'HARNESS_AGENT_MAX_MODEL_CALLS must be an integer number'],
    [
      'HARNESS_EVIDENCE_TTL_SECONDS',
      '120',
      'HARNESS_EVIDENCE_TTL_SECONDS must exceed HARNESS_RUN_TIMEOUT_MS',
    ],
    ['AUDIT_ENCRYPTION_KEYS', '', 'AUDIT_ENCRYPTION_KEYS is required outside demo mode'],
    [
      'AUDIT_ENCRYPTION_KEYS',
      'k1:c2hvcnQ=',
      'AUDIT_ENCRYPTION_KEYS entry 1 must be keyId:base64 of 32 bytes',
    ],
    [
      'API_KEYS',
      'admin=0123456789abcdef',
      'API_KEYS entry 1 must be roles=key with roles from chat, knowledge_admin, trace_reader, auditor, metrics_read, alert_ingest',
    ],
  ])('refuses to start when %s=%s, naming the key', async (key, value, message) => {
    await expect(withEnv({ [key]: value }, async () => validateConfiguration())).rejects.toThrow(message);
  });

  it('exits the built server with status 1 and a message naming the key, without a stack trace', () => {
    const result = spawnSync(process.execPath, ['dist/apps/server/src/main.js'], {
      env: { ...process.env, HARNESS_MYSQL_MAX_ROWS: '0' },
      encoding: 'utf8',
      timeout: scaled(20_000),
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('HARNESS_MYSQL_MAX_ROWS must not be less than 1');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
