import { ToolBoundary } from '@app/harness';
import { EvidenceTools, projectRagResult } from '@app/tools';
// An adapter, not part of the lib's public surface: tested directly against a fake py-rag.
import { PyRagKnowledgeSearch } from '../../libs/tools/src/knowledge/backends/pyrag/pyrag-knowledge-search';
import { FakePyRagServer } from '../support/fake-pyrag-server';
import { createHarnessFixture, HarnessFixture, startTestRun } from '../support/harness-fixture';

describe('query_logs through the Harness boundary (MOCK log source)', () => {
  let fixture: HarnessFixture;

  beforeAll(async () => {
    fixture = await createHarnessFixture();
  });
  afterAll(() => fixture.close());

  const call = async (id: string, args: unknown) => {
    const queryLogs = fixture.app.get(EvidenceTools).queryLogs;
    if (!queryLogs) throw new Error('query_logs needs LOG_BACKEND=mock (set by the e2e global setup)');
    const ctx = await startTestRun(fixture);
    try {
      const result = await fixture.app.get(ToolBoundary).execute(ctx, queryLogs, id, args);
      return JSON.parse(result.content) as Record<string, unknown>;
    } finally {
      ctx.close();
    }
  };

  it('finds the HikariCP exhaustion with patterns, a sample, the MOCK marker and the exact scope', async () => {
    const result = await call('call_logs', {
      topic: 'APPLICATION',
      query: 'order-service HikariPool',
      lookback_minutes: 30,
    });
    expect(result).toMatchObject({
      evidence_status: 'EVIDENCE_FOUND',
      source_kind: 'MOCK',
      scope: { topic: 'APPLICATION', query: 'order-service HikariPool' },
    });
    const scope = result.scope as { start_time: string; end_time: string };
    expect(Date.parse(scope.end_time) - Date.parse(scope.start_time)).toBe(30 * 60_000);
    expect(result.patterns).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ count: 84, level: 'ERROR', service: 'order-service' }),
      ]),
    );
    expect(Number(result.match_count)).toBeGreaterThanOrEqual(84);
    expect(JSON.stringify(result)).not.toMatch(/eyJhbGciOi|hunter\d/);
  });

  it('applies the default lookback', async () => {
    const result = await call('call_logs_default', { topic: 'ACCESS', query: 'pay 504' });
    const scope = result.scope as { start_time: string; end_time: string };
    expect(Date.parse(scope.end_time) - Date.parse(scope.start_time)).toBe(30 * 60_000);
  });

  it.each([
    [{ topic: 'KERNEL', query: 'x' }, 'topic'],
    [{ topic: 'APPLICATION', query: 'x', lookback_minutes: 100_000 }, 'lookback_minutes'],
    [{ topic: 'APPLICATION', query: 'x', status: '5' }, 'status'],
  ])('refuses %p as INVALID_ARGUMENTS naming the field', async (args, field) => {
    const result = await call(`call_bad_${field}`, args);
    expect(result).toMatchObject({ evidence_status: 'ERROR', error_code: 'INVALID_ARGUMENTS' });
    expect(result.message).toContain(field);
  });
});

describe('py-rag knowledge adapter against a local fake py-rag server', () => {
  const fake = new FakePyRagServer();
  let search: PyRagKnowledgeSearch;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    search = new PyRagKnowledgeSearch({ baseUrl: await fake.start(), mode: 'hybrid', timeoutMs: 300 });
  });
  afterAll(() => fake.stop());

  it('maps evidence and sends the query, mode and top_k', async () => {
    fake.replies.push({
      body: {
        evidence_status: 'evidence_found',
        evidence: [
          {
            document_id: 'payment-timeout-guide',
            chunk_id: 'c1',
            title: '支付超时排查',
            source: 'payment-timeout.md',
            breadcrumb: '支付系统 > 故障排查',
            text: '当支付请求出现 ERR_TIMEOUT 时',
            score: 0.92,
            rerank: { trace: 'x' },
          },
        ],
        trace: { candidates: 40 },
      },
    });
    const hits = await search.search('支付超时处理方式', 5, signal);
    expect(fake.requests.at(-1)).toEqual({
      path: '/api/v1/search',
      body: { query: '支付超时处理方式', mode: 'hybrid', top_k: 5 },
    });
    const projection = projectRagResult(
      { backend: 'pyrag', query: '支付超时处理方式', hits },
      { maxEvidence: 5, maxExcerptChars: 800, maxTotalChars: 4000 },
    );
    expect(projection.result.evidence).toEqual([
      {
        document_id: 'payment-timeout-guide',
        source: 'payment-timeout.md',
        title: '支付超时排查',
        breadcrumb: '支付系统 > 故障排查',
        excerpt: '当支付请求出现 ERR_TIMEOUT 时',
      },
    ]);
    expect(JSON.stringify(projection)).not.toMatch(/rerank|candidates|0\.92/);
  });

  it('treats no_evidence as an empty result, not an error', async () => {
    fake.replies.push({ body: { evidence_status: 'no_evidence', evidence: [] } });
    await expect(search.search('nothing', 5, signal)).resolves.toEqual([]);
  });

  it.each([
    ['a timeout', { delayMs: 1000, body: {} }, 'KNOWLEDGE_TIMEOUT'],
    ['HTTP 500', { status: 500, body: { detail: 'internal stack trace here' } }, 'KNOWLEDGE_UNAVAILABLE'],
    ['a body that is not JSON', { raw: '<html>oops</html>' }, 'KNOWLEDGE_BAD_RESPONSE'],
    ['an unexpected JSON shape', { body: { results: [] } }, 'KNOWLEDGE_BAD_RESPONSE'],
  ])('maps %s to a safe Tool ERROR code, with one attempt', async (_name, reply, code) => {
    const before = fake.requests.length;
    fake.replies.push(reply);
    await expect(search.search('q', 5, signal)).rejects.toMatchObject({ code });
    expect(fake.requests.length - before).toBe(1);
  });

  it('reports an unreachable service as KNOWLEDGE_UNAVAILABLE', async () => {
    const down = new PyRagKnowledgeSearch({
      baseUrl: 'http://127.0.0.1:1',
      mode: 'semantic',
      timeoutMs: 300,
    });
    await expect(down.search('q', 5, signal)).rejects.toMatchObject({ code: 'KNOWLEDGE_UNAVAILABLE' });
  });
});
