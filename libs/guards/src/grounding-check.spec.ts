import type { Draft } from './draft.schema';
import type { VerifiedSnapshot } from './evidence-rules';
import {
  checkGrounding,
  evidenceIndex,
  evidenceTexts,
  groundingDetails,
  GroundingTokenKind,
  specificTokens,
  traceableToken,
  ungroundedTokens,
} from './grounding-check';
import type { VerifiedEvidence } from './verified-evidence';

const logEvidence = (messages: string[]): VerifiedEvidence => ({
  source_type: 'LOG',
  source: 'APPLICATION (FILE)',
  demo: false,
  scope:
    'query: pool; 2026-11-20T09:30:00.000Z – 2026-11-20T10:30:00.000Z; ' +
    `${messages.length} matching events`,
  values: {
    patterns: [],
    events: messages.map((message) => ({
      timestamp: '2026-11-20T10:03:00.000Z',
      service: 'order-service',
      message,
    })),
  },
  evidence_status: 'EVIDENCE_FOUND',
  truncated: false,
});

const rowEvidence: VerifiedEvidence = {
  source_type: 'MYSQL',
  source: 'order_readonly',
  demo: false,
  scope:
    'SELECT payment_id, channel, status, error_code, latency_ms FROM payment_record WHERE order_id = ? params=["order-7021"]',
  values: {
    columns: ['payment_id', 'channel', 'status', 'error_code', 'latency_ms'],
    rows: [['pay-7021', 'alipay', 'TIMEOUT', 'ERR_TIMEOUT', 30000]],
  },
  evidence_status: 'EVIDENCE_FOUND',
  truncated: false,
};

const POOL_LOGS = logEvidence([
  'HikariPool-1 - Connection is not available, request timed out after 30000ms',
  'HikariPool-1 stats (total=50, active=50, idle=0, waiting=37)',
  'OrderReconcileJob batch=3 holding connection for 40s',
  'OrderReconcileJob batch=7 holding connection for 61s',
  'Redis used_memory=4.00G maxmemory=4.00G policy=noeviction',
  'HTTP 503 from inventory-service POST /inventory/reserve; disk usage 99.6%',
  'mysql-orders: Deadlock found when trying to get lock; RefundService.refund rolled back',
]);

describe('specificTokens', () => {
  it.each<[string, string, [GroundingTokenKind, string][]]>([
    ['plain words have none', 'The database is down and payments fail', []],
    [
      'bare counts and clock times are not checked',
      'order-service logged 64 errors since 10:03',
      [['IDENTIFIER', 'order-service']],
    ],
    [
      'error codes',
      'ECONNREFUSED and ERR_TIMEOUT, then ERROR 2003 (HY000), errno 28, HTTP 503',
      [
        ['ERROR_CODE', 'ECONNREFUSED'],
        ['ERROR_CODE', 'ERR_TIMEOUT'],
        ['ERROR_CODE', 'HY000'],
        ['ERROR_CODE', 'ERROR 2003'],
        ['ERROR_CODE', 'errno 28'],
        ['ERROR_CODE', 'HTTP 503'],
      ],
    ],
    [
      'identifiers: ids, services, tables, classes, dotted names, versions',
      'order-7021 on inventory-service updates biz_order in RefundService.refund after v2.14.0',
      [
        ['IDENTIFIER', 'v2.14.0'],
        ['IDENTIFIER', 'order-7021'],
        ['IDENTIFIER', 'inventory-service'],
        ['IDENTIFIER', 'RefundService.refund'],
        ['IDENTIFIER', 'biz_order'],
        ['IDENTIFIER', 'RefundService'],
      ],
    ],
    [
      'product names',
      'MySQL and redis are fine',
      [
        ['NAME', 'MySQL'],
        ['NAME', 'redis'],
      ],
    ],
    [
      'numbers with units, ranges and Chinese units',
      'timed out after 30 s, held 40–61 s, 4 GB, 99.6 %, 450 requests/s, 延迟 200 毫秒',
      [
        ['QUANTITY', '30 s'],
        ['QUANTITY', '40–61 s'],
        ['QUANTITY', '4 GB'],
        ['QUANTITY', '99.6 %'],
        ['QUANTITY', '450 requests/s'],
        ['QUANTITY', '200 毫秒'],
      ],
    ],
    ['look-back windows are not findings', 'errors in the last 22 minutes, 最近 60 分钟', []],
    ['bounds are not exact findings', 'more than 30000 ms, 延迟超过 45 秒, > 5 s', []],
    ['kebab words without a digit or service part are prose', 'add-to-cart and follow-up', []],
  ])('%s', (_name, text, expected) => {
    expect(specificTokens(text).map((token) => [token.kind, token.text])).toEqual(expected);
  });
});

describe('ungroundedTokens', () => {
  const index = evidenceIndex(evidenceTexts([POOL_LOGS, rowEvidence]));
  it.each<[string, string, string[]]>([
    ['an identifier quoted from a log line', 'HikariPool-1 ran out of connections', []],
    ['a class name inside a longer log token', 'HikariPool and RefundService were involved', []],
    ['a table from the SQL scope and a column name', 'payment_record.latency_ms of order-7021', []],
    ['an error code from a row', 'the payment failed with ERR_TIMEOUT', []],
    ['a unit converted (30000 ms = 30 s)', 'calls time out after 30 s', []],
    ['a range whose ends are both in the evidence', 'batches held connections for 40–61 s', []],
    ['a size written differently (4.00G = 4 GB)', 'Redis reached maxmemory 4 GB', []],
    ['a percentage', 'the disk was 99.6 % full', []],
    ['an HTTP status', 'inventory-service answered HTTP 503', []],
    ['a product named inside a service name', 'MySQL logged deadlocks', []],
    ['a product by another name of its family (HikariCP logs as HikariPool)', 'HikariCP and InnoDB', []],
    [
      'an error code the evidence does not hold',
      'MySQL refused connections: ERROR 2003 (HY000)',
      ['HY000', 'ERROR 2003'],
    ],
    ['a service that is not in the evidence', 'payment-gateway is down', ['payment-gateway']],
    ['a product that is not in the evidence', 'Kafka lag grew', ['Kafka']],
    ['a number with a unit that is not in the evidence', 'calls time out after 45 s', ['45 s']],
    ['a range with one end not in the evidence', 'held for 40–90 s', ['40–90 s']],
    ['an identifier only as part of a longer one', 'order-702 failed', ['order-702']],
    ['an HTTP status not in the evidence', 'the gateway answered 502', ['502']],
    ['a number only in a timestamp', 'errno 30', ['errno 30']],
  ])('%s', (_name, text, expected) => {
    expect(ungroundedTokens(text, index).map((token) => token.text)).toEqual(expected);
  });
});

const draftOf = (overrides: Partial<Draft> = {}): Draft => ({
  conclusion: {
    text: 'order-service HikariPool-1 was exhausted by OrderReconcileJob',
    based_on_analysis_ids: ['a1'],
  },
  analysis: [
    {
      analysis_id: 'a1',
      kind: 'NORMAL',
      text: 'HikariPool-1 timed out after 30000 ms while OrderReconcileJob held connections for 40 s',
      tool_call_ids: ['call_logs_1'],
    },
    {
      analysis_id: 'a2',
      kind: 'NEGATIVE_OBSERVATION',
      text: 'No Kafka errors and no ERROR 2003',
      tool_call_ids: ['call_sql_1'],
    },
  ],
  action_plan: [],
  recommendations: [],
  limitations: { scope: 'order-service logs', missing_info: [] },
  ...overrides,
});

function snapshotOf(draft: Draft, evidence: Record<string, VerifiedEvidence[]>): VerifiedSnapshot {
  return {
    byAnalysis: draft.analysis.map((item) => ({
      analysis_id: item.analysis_id,
      analysis_text: item.text,
      kind: item.kind,
      verified_evidence: evidence[item.analysis_id] ?? [],
    })),
    cited: new Map(),
  };
}

describe('checkGrounding', () => {
  const evidence = { a1: [POOL_LOGS], a2: [rowEvidence] };

  it('releases a draft whose NORMAL analysis and conclusion quote their own evidence', () => {
    const draft = draftOf();
    expect(checkGrounding(draft, snapshotOf(draft, evidence))).toEqual({ ok: true });
  });

  it('checks each analysis against the evidence it cites, not against all evidence of the run', () => {
    const draft = draftOf({
      analysis: [
        { analysis_id: 'a1', kind: 'NORMAL', text: 'order-7021 hit ERR_TIMEOUT', tool_call_ids: ['c1'] },
      ],
      conclusion: null,
    });
    const result = checkGrounding(draft, snapshotOf(draft, { a1: [POOL_LOGS], a2: [rowEvidence] }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.ungrounded.map((claim) => [claim.claim, claim.tokens.map((t) => t.text)])).toEqual([
      ['analysis a1', ['ERR_TIMEOUT', 'order-7021']],
    ]);
  });

  it('refuses the misattributed "database is down" report citing a real but unrelated call', () => {
    const draft = draftOf({
      conclusion: {
        text: 'The order database is down: order-service cannot connect to MySQL (ERROR 2003)',
        based_on_analysis_ids: ['a1'],
      },
      analysis: [
        {
          analysis_id: 'a1',
          kind: 'NORMAL',
          text: "order-service failed to connect: ERROR 2003 (HY000): Can't connect to MySQL server on mysql-orders",
          tool_call_ids: ['call_sql_1'],
        },
      ],
    });
    const result = checkGrounding(draft, snapshotOf(draft, { a1: [rowEvidence] }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.ungrounded.map((claim) => claim.claim)).toEqual(['analysis a1', 'conclusion']);
    expect(groundingDetails(result.ungrounded)).toEqual({
      ungrounded_claims: 2,
      ungrounded_tokens: 8,
      kinds: 'ERROR_CODE,IDENTIFIER,NAME',
      ungrounded:
        'analysis a1@0 IDENTIFIER order-service; analysis a1@33 ERROR_CODE ERROR 2003; ' +
        'analysis a1@45 ERROR_CODE HY000; analysis a1@70 NAME MySQL; analysis a1@86 IDENTIFIER mysql-orders; ' +
        'conclusion@28 IDENTIFIER order-service; conclusion@60 NAME MySQL; conclusion@67 ERROR_CODE ERROR 2003',
    });
  });

  it.each([
    ['a short identifier, as written', 'order-7021', 'order-7021'],
    ['an order number, by shape only', 'ORD-20261205-004217', 'AAA-99999999-999999'],
    ['a key-like token, by shape only', 'sk-live-4f9A2b7C1d', 'aa-aaaa-9a9A9a9A9a'],
    ['a key without digits, by shape only', 'qWeRtYuIoPaSdFgHjK', 'aAaAaAaAaAaAaAaAaA'],
    ['a long random word, by shape only', 'ref_zxqvbnmlkjhgfdsapoiu', 'aaa_aaaaaaaaaaaaaaaaaaaa'],
    ['a service name, as written', 'payment-gateway', 'payment-gateway'],
    ['a class and method, as written', 'RefundService.refund', 'RefundService.refund'],
    ['a product name, as written', 'HikariCP', 'HikariCP'],
  ])('traces %s', (_case, text, traced) => {
    const [token] = specificTokens(`seen ${text} here`);
    expect(token.text).toBe(text);
    expect(traceableToken(token)).toBe(traced);
  });

  it('names at most ten tokens in the trace and counts the rest', () => {
    const text = Array.from({ length: 13 }, (_, i) => `svc-${i}`).join(' ');
    const details = groundingDetails([{ claim: 'conclusion', tokens: specificTokens(text) }]);
    expect(details.ungrounded_tokens).toBe(13);
    expect(String(details.ungrounded).split('; ')).toHaveLength(11);
    expect(details.ungrounded).toMatch(/^conclusion@0 IDENTIFIER svc-0; .*; \+3 more$/);
  });

  it('checks the conclusion against all evidence the draft cites', () => {
    const draft = draftOf({
      conclusion: { text: 'Kafka consumers stalled for 45 s', based_on_analysis_ids: ['a1'] },
    });
    const result = checkGrounding(draft, snapshotOf(draft, evidence));
    expect(result).toEqual({
      ok: false,
      ungrounded: [{ claim: 'conclusion', tokens: expect.any(Array) }],
    });
  });

  it('does not check negative observations: they name what was not found', () => {
    const draft = draftOf();
    expect(checkGrounding(draft, snapshotOf(draft, { a1: [POOL_LOGS], a2: [] })).ok).toBe(true);
  });

  it('releases a draft without conclusion whose analyses are grounded', () => {
    const draft = draftOf({ conclusion: null });
    expect(checkGrounding(draft, snapshotOf(draft, evidence))).toEqual({ ok: true });
  });
});
