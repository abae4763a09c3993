import { MOCK_SCOPE_NOTE } from '@app/contracts';
import { Draft } from './draft.schema';
import { VerifiedSnapshot } from './evidence-rules';
import {
  argumentFreeScope,
  fallbackReport,
  releasedDetails,
  releasedScope,
  releaseReport,
} from './release-policy';
import { VerifiedEvidence } from './verified-evidence';

const knowledge = {
  source_type: 'KNOWLEDGE' as const,
  source: 'knowledge base',
  demo: false,
  scope: 'query: 支付超时',
  evidence_status: 'EVIDENCE_FOUND' as const,
  values: [{ document_id: 'doc-1', title: '支付超时排查手册', excerpt: 'HikariCP 耗尽' }],
  truncated: false,
  tool_name: 'lookup_knowledge',
};
const logs = {
  source_type: 'LOG' as const,
  source: 'APPLICATION (MOCK)',
  demo: true,
  scope: 'last 30 minutes',
  evidence_status: 'EVIDENCE_FOUND' as const,
  values: { patterns: [] },
  truncated: false,
  tool_name: 'query_logs',
};
const snapshot: VerifiedSnapshot = {
  byAnalysis: [],
  cited: new Map<string, VerifiedEvidence & { tool_name: string }>([
    ['call_logs', logs],
    ['call_kb', knowledge],
  ]),
};

const draft: Draft = {
  conclusion: { text: 'DRAFT-CONCLUSION pool exhausted', based_on_analysis_ids: ['a1'] },
  analysis: [
    {
      analysis_id: 'a1',
      kind: 'NORMAL',
      text: 'DRAFT-ANALYSIS 84 pool errors',
      tool_call_ids: ['call_logs', 'call_logs'],
    },
    { analysis_id: 'a2', kind: 'NORMAL', text: 'runbook says so', tool_call_ids: ['call_kb', 'call_logs'] },
  ],
  action_plan: [
    { action: 'DRAFT-ACTION kill the job', based_on_analysis_ids: ['a1'], requires_human_confirmation: true },
  ],
  recommendations: [{ text: 'alert on waiting threads', based_on_analysis_ids: ['a2'] }],
  limitations: { scope: 'order-service, last 30 minutes', missing_info: ['no slow query log'] },
};

describe('releasedDetails', () => {
  it('keeps the count and at most 15 references, within the 16 keys an event may carry', () => {
    const ids = Array.from({ length: 20 }, (_, index) => `call_${index}`);
    const details = releasedDetails(ids);
    expect(Object.keys(details)).toHaveLength(16);
    expect(details).toMatchObject({ references: 20, ref_1: 'call_0', ref_15: 'call_14' });
    expect(details).not.toHaveProperty('ref_16');
  });
});

describe('releaseReport', () => {
  it('releases the draft unchanged with references expanded in first-citation order', () => {
    const { report, toolCallIds } = releaseReport('order-123 payment times out', draft, snapshot, {
      maxFieldChars: 1000,
      maxSourceDocuments: 5,
    });
    // Reference n expands the n-th cited call; the trace's RELEASED event keeps that mapping.
    expect(toolCallIds).toEqual(['call_logs', 'call_kb']);
    expect(releasedDetails(toolCallIds)).toEqual({ references: 2, ref_1: 'call_logs', ref_2: 'call_kb' });
    expect(Object.keys(report)).toEqual([
      'conclusion',
      'analysis',
      'action_plan',
      'recommendations',
      'limitations',
      'references',
    ]);
    expect(report.conclusion).toEqual(draft.conclusion);
    expect(report.action_plan).toEqual(draft.action_plan);
    expect(report.recommendations).toEqual(draft.recommendations);
    expect(report.limitations).toEqual({
      scope: `order-service, last 30 minutes ${MOCK_SCOPE_NOTE}`,
      missing_info: draft.limitations.missing_info,
    });
    expect(report.analysis.map((a) => [a.analysis_id, a.text, a.reference_ids])).toEqual([
      ['a1', 'DRAFT-ANALYSIS 84 pool errors', [1]],
      ['a2', 'runbook says so', [2, 1]],
    ]);
    expect(report.references.map((r) => [r.reference_id, r.source_type, r.source])).toEqual([
      [1, 'LOG', 'APPLICATION (MOCK)'],
      [2, 'KNOWLEDGE', 'knowledge base'],
    ]);
    expect(JSON.stringify(report)).not.toMatch(/call_logs|call_kb|tool_name/);
  });

  it('publishes only conclusion, scope, limitations and source documents, within limits', () => {
    const { publishedResult } = releaseReport('q'.repeat(80), draft, snapshot, {
      maxFieldChars: 50,
      maxSourceDocuments: 1,
    });
    expect(publishedResult).toEqual({
      user_query: 'q'.repeat(50),
      published_conclusion: 'DRAFT-CONCLUSION pool exhausted',
      scope: `order-service, last 30 minutes ${MOCK_SCOPE_NOTE}`.slice(0, 50),
      limitations: ['no slow query log'],
      source_documents: [{ document_id: 'doc-1', title: '支付超时排查手册' }],
    });
  });
});

describe('releasedScope', () => {
  it.each<[string, string, (typeof logs | typeof knowledge)[], string]>([
    ['a MOCK log source is cited', 'order-service', [knowledge, logs], `order-service ${MOCK_SCOPE_NOTE}`],
    ['the draft scope is empty', '', [logs], MOCK_SCOPE_NOTE],
    ['the note is already there', `x ${MOCK_SCOPE_NOTE}`, [logs], `x ${MOCK_SCOPE_NOTE}`],
    [
      'no MOCK source is cited',
      'order-service',
      [knowledge, { ...logs, source: 'APPLICATION (FILE)', demo: false }],
      'order-service',
    ],
    // The typed field decides, never the display text.
    [
      'a source reads MOCK but is not demo data',
      'order-service',
      [{ ...logs, demo: false }],
      'order-service',
    ],
    [
      'demo data whatever its display text',
      'order-service',
      [{ ...logs, source: 'APPLICATION' }],
      `order-service ${MOCK_SCOPE_NOTE}`,
    ],
  ])('states MOCK evidence by code when %s', (_name, scope, cited, expected) => {
    expect(releasedScope(scope, cited)).toBe(expected);
  });
});

describe('fallbackReport', () => {
  it('lists no sources after an evidence failure', () => {
    expect(fallbackReport('EVIDENCE_VALIDATION_FAILED', snapshot)).toMatchObject({
      type: 'EVIDENCE_VALIDATION_FAILED',
      conclusion: null,
      verified_sources: [],
    });
  });

  it.each(['SEMANTIC_UNSUPPORTED', 'SEMANTIC_UNAVAILABLE'] as const)(
    '%s lists the verified sources only, never draft text',
    (type) => {
      const fallback = fallbackReport(type, snapshot);
      expect(fallback.verified_sources).toEqual([
        { source_type: 'LOG', source: 'APPLICATION (MOCK)', scope: '' },
        { source_type: 'KNOWLEDGE', source: 'knowledge base', scope: '1 documents' },
      ]);
      expect(JSON.stringify(fallback)).not.toMatch(/DRAFT-|HikariCP/);
      expect(fallback.next_steps.length).toBeGreaterThan(0);
    },
  );
});

describe('argumentFreeScope', () => {
  it.each([
    [
      'a log search keeps its window and count, not its query',
      {
        source_type: 'LOG' as const,
        values: {},
        scope:
          'query: see https://evil.test/x; 2026-12-03T04:00:00Z – 2026-12-03T04:30:00Z; 3 matching events',
      },
      '2026-12-03T04:00:00Z – 2026-12-03T04:30:00Z; 3 matching events',
    ],
    [
      'a SQL statement keeps its tables, not its literals or params',
      {
        source_type: 'MYSQL' as const,
        values: {},
        scope:
          'SELECT o.id FROM biz_order o JOIN `payment_record` p ON p.order_id = o.id WHERE o.note = \'https://evil.test\' params=["http://evil.test"]',
      },
      'tables: biz_order, payment_record',
    ],
    [
      'a knowledge lookup keeps its document count, not its query',
      { source_type: 'KNOWLEDGE' as const, values: [{}, {}], scope: 'query: http://evil.test' },
      '2 documents',
    ],
    [
      'a metric range query keeps its window and series count, not its PromQL',
      {
        source_type: 'METRIC' as const,
        values: [],
        scope:
          'rate(http_requests_total{note="https://evil.test; 9 series"}[5m]); 2026-12-03T04:00:00.000Z – 2026-12-03T05:00:00.000Z, step 15s; 2 series',
      },
      '2026-12-03T04:00:00.000Z – 2026-12-03T05:00:00.000Z, step 15s; 2 series',
    ],
    [
      'a metric instant query keeps its time and series count',
      {
        source_type: 'METRIC' as const,
        values: [],
        scope: 'up{job="http://evil.test"}; at 2026-12-03T05:00:00.000Z; 1 series',
      },
      'at 2026-12-03T05:00:00.000Z; 1 series',
    ],
    [
      'a metric scope without the tool-built tail shows nothing',
      { source_type: 'METRIC' as const, values: [], scope: 'http://evil.test' },
      '',
    ],
    [
      'an unknown tool shows nothing',
      { source_type: 'OTHER' as const, values: {}, scope: 'http://evil.test' },
      '',
    ],
  ])('%s', (_name, evidence, expected) => {
    expect(argumentFreeScope(evidence)).toBe(expected);
    expect(argumentFreeScope(evidence)).not.toMatch(/evil/);
  });
});

describe('references and sources as data', () => {
  const planted = {
    source_type: 'MYSQL' as const,
    source: 'order_db',
    demo: false,
    scope: "SELECT 'support.evil-desk.com' AS host FROM evil.com params=[]",
    evidence_status: 'EVIDENCE_FOUND' as const,
    values: { columns: ['host'], rows: [['support.evil-desk.com'], ['order-123']] },
    truncated: false,
    tool_name: 'query_mysql',
  };
  const cited: VerifiedSnapshot = { byAnalysis: [], cited: new Map([['call_rows', planted]]) };
  const limits = { maxFieldChars: 500, maxSourceDocuments: 5 };
  const withRows: Draft = {
    ...draft,
    analysis: [{ analysis_id: 'a1', kind: 'NORMAL', text: 'rows', tool_call_ids: ['call_rows'] }],
  };

  it('labels the scope as the model’s query and shows dangerous values inert', () => {
    const { report } = releaseReport('q', withRows, cited, limits);
    const [reference] = report.references;
    expect(reference.scope).toMatch(/^模型的查询 \/ the model’s query: ⚠ \[inert\] /u);
    expect(reference.values).toEqual({
      columns: ['host'],
      rows: [['⚠ [inert] support[.]evil-desk[.]com'], ['order-123']],
    });
    expect(JSON.stringify(report.references)).not.toMatch(/evil-desk\.com|evil\.com/u);
  });

  it('shows a fallback source’s tables inert', () => {
    const fallback = fallbackReport('SEMANTIC_UNSUPPORTED', cited);
    expect(fallback.verified_sources).toEqual([
      { source_type: 'MYSQL', source: 'order_db', scope: '⚠ [inert] tables: evil[.]com' },
    ]);
  });
});
