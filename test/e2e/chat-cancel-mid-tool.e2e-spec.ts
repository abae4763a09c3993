import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { RunningApp, startApp } from '../support/app-under-test';
import { BusinessDatabase, createBusinessDatabase, dropBusinessDatabase } from '../support/business-db';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_MYSQL } from '../support/test-env';

const business: BusinessDatabase = {
  schema: `${process.env.E2E_SERVICE_DB}_slow`,
  user: `sbs_${randomBytes(4).toString('hex')}`,
  password: `pw-${randomBytes(8).toString('hex')}`,
};

const SLEEPING =
  "SELECT COUNT(*) AS n FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(15)%'";

async function adminQuery(sql: string, params: unknown[] = [], database?: string): Promise<RowDataPacket[]> {
  const connection = await createConnection({ ...TEST_MYSQL, database });
  try {
    return (await connection.query<RowDataPacket[]>(sql, params))[0];
  } finally {
    await connection.end();
  }
}

describe('client disconnect while a tool runs', () => {
  const stub = new StubLlmServer();
  let app: RunningApp;

  beforeAll(async () => {
    await createBusinessDatabase(TEST_MYSQL, business);
    const config = join(mkdtempSync(join(tmpdir(), 'mysql-tools-')), 'slow.yaml');
    writeFileSync(
      config,
      `harness:
  mysql-tools:
    data-sources:
      slow_readonly:
        url: mysql://${TEST_MYSQL.host}:${TEST_MYSQL.port}/${business.schema}
        username: \${SLOW_USER}
        password: \${SLOW_PASSWORD}
        default-schema: ${business.schema}
        allowed-functions: [SLEEP]
        allowed-schemas:
          ${business.schema}:
            tables:
              biz_order:
                columns: [order_id]
`,
    );
    app = await startApp({
      LLM_BASE_URL: await stub.start(),
      MYSQL_TOOLS_CONFIG: config,
      SLOW_USER: business.user,
      SLOW_PASSWORD: business.password,
      HARNESS_MYSQL_QUERY_TIMEOUT_MS: '20000',
      HARNESS_TOOL_CALL_TIMEOUT_MS: '30000',
    });
  });

  afterAll(async () => {
    await app?.close();
    await stub.stop();
    await dropBusinessDatabase(TEST_MYSQL, business);
  });

  it('aborts the running query, ends the run CANCELLED and sends nothing more', async () => {
    stub.load({
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': [
          {
            content: '1. check the order',
            tool_calls: [
              {
                id: 'call_slow_sql',
                name: 'query_mysql',
                arguments: {
                  data_source: 'slow_readonly',
                  sql: 'SELECT SLEEP(15) AS s FROM biz_order LIMIT 1',
                  params: [],
                },
              },
            ],
          },
        ],
      },
    });
    // Disconnect only once the statement is really running on the server.
    const client = new AbortController();
    const watcher = setInterval(() => {
      void adminQuery(SLEEPING).then((rows) => {
        if (Number(rows[0].n) > 0) client.abort();
      });
    }, 50);
    const response = await postChat(
      app.baseUrl,
      { query: 'order-123 payment times out' },
      { signal: client.signal },
    );
    clearInterval(watcher);
    expect(response.events.map((event) => event.data.code)).toContain('TOOL_RUNNING');
    expect(response.events.map((event) => event.event)).not.toContain('done');
    const runId = String(response.events[0].data.run_id);

    let status = 'RUNNING';
    let sleeping = 1;
    for (let i = 0; i < 60 && (status === 'RUNNING' || sleeping > 0); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = String(
        (
          await adminQuery('SELECT status FROM diagnosis_run WHERE run_id = ?', [runId], process.env.DB_NAME)
        )[0].status,
      );
      sleeping = Number((await adminQuery(SLEEPING))[0].n);
    }
    expect(status).toBe('CANCELLED');
    expect(sleeping).toBe(0);
    const [invocation] = await adminQuery(
      'SELECT tool_name, error_code FROM tool_invocation WHERE run_id = ?',
      [runId],
      process.env.DB_NAME,
    );
    expect(invocation).toMatchObject({ tool_name: 'query_mysql', error_code: 'CANCELLED' });
  });
});
