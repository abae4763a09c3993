import { FAILURE_CODES } from '@app/contracts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseStubScript } from '../test/support/stub-llm/stub-script';
import { baselineScript, databaseIsDownDraft } from './baselines';
import { contenderRun, htmlReport, markdownTable, RunOutcome, scenarioResult, summarize } from './report';
import { Expectation, loadScenarios, sqlStatements } from './scenario';
import { causeFamiliesOf, claims, hedgedCauses, scoreScenario, TurnObservation } from './scorer';

const EXPECT_REPORT: Expectation = {
  outcome: 'report',
  root_cause: ['pool|连接池', 'order-service'],
  forbidden: ['redis', 'certificate'],
  evidence: ['LOG', 'MYSQL'],
  samples: [],
};
const EXPECT_NONE: Expectation = {
  outcome: 'no_conclusion',
  root_cause: [],
  forbidden: ['pool'],
  evidence: [],
  samples: [],
};

const LOG_REF = { reference_id: 1, source_type: 'LOG', source: 'APPLICATION (FILE)', demo: false };
const SQL_REF = { reference_id: 2, source_type: 'MYSQL', source: 'order_readonly', demo: false };
const METRIC_REF = {
  reference_id: 3,
  source_type: 'METRIC',
  source: 'prod_prometheus (PromQL)',
  demo: false,
};
const EXPECT_METRIC: Expectation = { ...EXPECT_REPORT, evidence: ['METRIC', 'LOG'] };
const METRIC_CALLS: TurnObservation['toolCalls'] = [
  { tool_name: 'query_logs', status: 'READY', evidence_status: 'EVIDENCE_FOUND' },
  { tool_name: 'query_mysql', status: 'READY', evidence_status: 'EVIDENCE_FOUND' },
  { tool_name: 'query_metrics', status: 'READY', evidence_status: 'EVIDENCE_FOUND' },
];

function report(overrides: Record<string, unknown> = {}) {
  return {
    conclusion: {
      text: 'The order-service connection pool was exhausted',
      based_on_analysis_ids: ['a1', 'a2'],
    },
    analysis: [
      { analysis_id: 'a1', kind: 'NORMAL', text: '64 HikariPool timeouts', reference_ids: [1] },
      { analysis_id: 'a2', kind: 'NORMAL', text: 'order-7001 is PAY_TIMEOUT', reference_ids: [2] },
      { analysis_id: 'a3', kind: 'NEGATIVE_OBSERVATION', text: 'no redis errors found', reference_ids: [1] },
    ],
    action_plan: [{ action: 'Stop the batch job', based_on_analysis_ids: ['a1'] }],
    recommendations: [{ text: 'Alert on waiting threads', based_on_analysis_ids: ['a1'] }],
    limitations: { scope: 'order-service', missing_info: [] },
    references: [LOG_REF, SQL_REF],
    ...overrides,
  };
}

function turn(overrides: Partial<TurnObservation> = {}): TurnObservation {
  return {
    outcome: 'SUCCESS',
    contentType: 'DIAGNOSIS_REPORT',
    payload: report(),
    failureCode: null,
    fallbackReason: null,
    errorCode: null,
    latencyMs: 1200,
    toolCalls: [
      { tool_name: 'query_logs', status: 'READY', evidence_status: 'EVIDENCE_FOUND' },
      { tool_name: 'query_mysql', status: 'READY', evidence_status: 'EVIDENCE_FOUND' },
    ],
    tokens: { input: 900, output: 100, total: 1000 },
    ...overrides,
  };
}

const FALLBACK = turn({
  outcome: 'FALLBACK',
  contentType: 'FALLBACK',
  payload: { type: 'SEMANTIC_UNSUPPORTED', conclusion: null, message: 'x', verified_sources: [] },
});

describe('scoreScenario', () => {
  it('passes a correct report and totals the metrics of every turn', () => {
    const score = scoreScenario(EXPECT_REPORT, [turn({ latencyMs: 800 }), turn()]);
    expect(score).toEqual({
      status: 'pass',
      passed: true,
      released_conclusion: true,
      checks: { outcome_correct: true, root_cause_hit: true, forbidden_absent: true, citations_valid: true },
      problems: [],
      metrics: {
        tool_calls: 4,
        tool_errors: 0,
        input_tokens: 1800,
        output_tokens: 200,
        total_tokens: 2000,
        latency_ms: 2000,
      },
    });
  });

  it('does not count a negative observation as a forbidden claim', () => {
    expect(scoreScenario(EXPECT_REPORT, [turn()]).checks.forbidden_absent).toBe(true);
  });

  // Deliberately wrong answers: each must fail exactly the check it breaks.
  it.each<[string, TurnObservation, Expectation, keyof ReturnType<typeof scoreScenario>['checks'], RegExp]>([
    [
      'a wrong root cause',
      turn({
        payload: report({ conclusion: { text: 'Redis ran out of memory', based_on_analysis_ids: ['a1'] } }),
      }),
      { ...EXPECT_REPORT, forbidden: [] },
      'root_cause_hit',
      /misses root-cause marker/,
    ],
    [
      'a forbidden claim in the conclusion',
      turn({
        payload: report({
          conclusion: {
            text: 'order-service pool exhausted by a redis outage',
            based_on_analysis_ids: ['a1'],
          },
        }),
      }),
      EXPECT_REPORT,
      'forbidden_absent',
      /forbidden claim.*redis/,
    ],
    [
      'a forbidden claim in a recommendation',
      turn({
        payload: report({
          recommendations: [{ text: 'Renew the certificate', based_on_analysis_ids: ['a1'] }],
        }),
      }),
      EXPECT_REPORT,
      'forbidden_absent',
      /certificate/,
    ],
    [
      'a fallback where a report was expected',
      FALLBACK,
      EXPECT_REPORT,
      'outcome_correct',
      /expected a released report/,
    ],
    [
      'a report without a conclusion where one was expected',
      turn({ payload: report({ conclusion: null }) }),
      EXPECT_REPORT,
      'outcome_correct',
      /expected a conclusion/,
    ],
    [
      'a run that failed on its own budget',
      turn({ outcome: 'FAILED', contentType: null, payload: null, failureCode: 'BUDGET_EXHAUSTED' }),
      EXPECT_REPORT,
      'outcome_correct',
      /BUDGET_EXHAUSTED/,
    ],
    [
      'a conclusion where the evidence supports none',
      turn({ payload: report({ conclusion: { text: 'the pool broke', based_on_analysis_ids: ['a1'] } }) }),
      EXPECT_NONE,
      'outcome_correct',
      /expected no conclusion/,
    ],
    [
      'an analysis citing a reference that does not exist',
      turn({
        payload: report({
          analysis: [{ analysis_id: 'a1', kind: 'NORMAL', text: 'x', reference_ids: [7] }],
          conclusion: { text: 'order-service pool', based_on_analysis_ids: ['a1'] },
          action_plan: [],
          recommendations: [],
        }),
      }),
      EXPECT_REPORT,
      'citations_valid',
      /unknown reference/,
    ],
    [
      'a conclusion based on an analysis that does not exist',
      turn({
        payload: report({
          conclusion: { text: 'order-service pool exhausted', based_on_analysis_ids: ['a9'] },
        }),
      }),
      EXPECT_REPORT,
      'citations_valid',
      /unknown analysis id/,
    ],
    [
      'more references than verified tool calls',
      turn({ toolCalls: [{ tool_name: 'query_logs', status: 'READY', evidence_status: 'EVIDENCE_FOUND' }] }),
      EXPECT_REPORT,
      'citations_valid',
      /only 1 verified tool calls/,
    ],
    [
      'log evidence from the MOCK source',
      turn({
        payload: report({ references: [{ ...LOG_REF, source: 'APPLICATION (MOCK)', demo: true }, SQL_REF] }),
      }),
      EXPECT_REPORT,
      'citations_valid',
      /evidence is demo data/,
    ],
    [
      'a required evidence type cited only by a negative observation',
      turn({
        payload: report({
          analysis: [
            { analysis_id: 'a1', kind: 'NORMAL', text: 'pool timeouts', reference_ids: [1] },
            { analysis_id: 'a2', kind: 'NEGATIVE_OBSERVATION', text: 'no row', reference_ids: [2] },
          ],
        }),
      }),
      EXPECT_REPORT,
      'citations_valid',
      /no MYSQL evidence/,
    ],
    [
      'a metric-only cause reported without metric evidence',
      turn(),
      EXPECT_METRIC,
      'citations_valid',
      /no METRIC evidence/,
    ],
    [
      'metric evidence cited only by a negative observation',
      turn({
        toolCalls: METRIC_CALLS,
        payload: report({
          analysis: [
            { analysis_id: 'a1', kind: 'NORMAL', text: 'pool timeouts', reference_ids: [1] },
            { analysis_id: 'a2', kind: 'NEGATIVE_OBSERVATION', text: 'CPU stayed flat', reference_ids: [3] },
          ],
          references: [LOG_REF, SQL_REF, METRIC_REF],
        }),
      }),
      EXPECT_METRIC,
      'citations_valid',
      /no METRIC evidence/,
    ],
    [
      'metric evidence from a tool that is not query_metrics (MCP results are OTHER)',
      turn({
        toolCalls: METRIC_CALLS,
        payload: report({
          analysis: [
            { analysis_id: 'a1', kind: 'NORMAL', text: 'pool at 10 of 10', reference_ids: [1, 3] },
            { analysis_id: 'a2', kind: 'NORMAL', text: 'order-7001 is PAY_TIMEOUT', reference_ids: [2] },
          ],
          references: [
            LOG_REF,
            SQL_REF,
            { ...METRIC_REF, source_type: 'OTHER', source: 'MCP prometheus / query' },
          ],
        }),
      }),
      EXPECT_METRIC,
      'citations_valid',
      /no METRIC evidence/,
    ],
  ])('marks %s wrong', (_name, observed, expectation, check, problem) => {
    const score = scoreScenario(expectation, [observed]);
    expect(score.passed).toBe(false);
    expect(score.checks[check]).toBe(false);
    expect(score.problems.join('; ')).toMatch(problem);
  });

  it('passes a metric-only cause when a NORMAL analysis cites METRIC evidence beside the logs', () => {
    const score = scoreScenario(EXPECT_METRIC, [
      turn({
        toolCalls: METRIC_CALLS,
        payload: report({
          analysis: [
            { analysis_id: 'a1', kind: 'NORMAL', text: 'gateway timeouts', reference_ids: [1] },
            { analysis_id: 'a2', kind: 'NORMAL', text: 'pool at 10 of 10', reference_ids: [3] },
          ],
          references: [LOG_REF, METRIC_REF],
        }),
      }),
    ]);
    expect(score.problems).toEqual([]);
    expect(score.passed).toBe(true);
  });

  it('accepts a fallback or a null conclusion where no cause is supported', () => {
    expect(scoreScenario(EXPECT_NONE, [FALLBACK]).passed).toBe(true);
    const noConclusion = turn({
      payload: report({
        conclusion: null,
        analysis: [
          { analysis_id: 'a1', kind: 'NEGATIVE_OBSERVATION', text: 'no errors', reference_ids: [1] },
        ],
        action_plan: [],
        recommendations: [],
      }),
    });
    expect(scoreScenario(EXPECT_NONE, [noConclusion]).passed).toBe(true);
  });

  it('fails a scenario whose earlier turn failed, and one with no turn at all', () => {
    const failed = turn({ outcome: 'FAILED', contentType: null, payload: null });
    expect(scoreScenario(EXPECT_REPORT, [failed, turn()]).problems).toContain('an earlier turn ended FAILED');
    expect(scoreScenario(EXPECT_REPORT, []).passed).toBe(false);
  });
});

// The blind spots an outside check found: each must stay closed.
describe('claims: a ruled-out mention never counts as claiming it', () => {
  it.each<[string, string, string, boolean]>([
    ['a plain claim', 'deadlock|死锁', 'Payment callbacks fail on InnoDB deadlocks', true],
    ['"X, not Y" claims X', 'deadlock', 'deadlocks, not a lock wait timeout', true],
    ['"X, not Y" does not claim Y', 'lock wait timeout', 'deadlocks, not a lock wait timeout', false],
    ['"not Y but X"', 'lock wait', 'not a lock wait but a deadlock', false],
    ['"X was ruled out"', 'redis', 'Redis was ruled out: its memory is fine', false],
    ['"X is healthy"', 'redis', 'Redis is healthy and the pool is exhausted', false],
    ['"no X errors"', 'certificate', 'no certificate errors were found', false],
    ['"rather than X"', 'disk', 'the pool is exhausted rather than the disk being full', false],
    ['排除 X', 'redis', '已排除 Redis，问题在连接池', false],
    ['不是 X', '死锁', '不是死锁，是锁等待超时', false],
    ['X 已排除', 'redis', 'Redis 已排除', false],
    ['X 正常', 'redis', 'Redis 正常，连接池耗尽', false],
    ['a negation in another clause does not count', 'pool', 'no disk errors; the pool was exhausted', true],
    [
      'a negation before "because" does not reach the cause',
      'pool',
      'order-service has no free connections because the pool was exhausted',
      true,
    ],
    ['a marker that itself starts with a negation word', 'no space', 'No space left on device', true],
  ])('%s', (_name, pattern, text, expected) => {
    expect(claims(pattern, text)).toBe(expected);
  });

  it('does not fail the forbidden check on a ruled-out cause (deadlock … not a lock wait timeout)', () => {
    const expectation: Expectation = {
      outcome: 'report',
      root_cause: ['deadlock|死锁'],
      forbidden: ['lock wait timeout', 'redis'],
      evidence: [],
      samples: [],
    };
    for (const text of [
      'Callbacks fail on deadlocks between pay and refund, not a lock wait timeout; Redis was ruled out',
      '回调失败是死锁导致的，不是锁等待超时，也排除了 Redis',
    ]) {
      const score = scoreScenario(expectation, [
        turn({ payload: report({ conclusion: { text, based_on_analysis_ids: ['a1'] } }) }),
      ]);
      expect(score.checks).toEqual({
        outcome_correct: true,
        root_cause_hit: true,
        forbidden_absent: true,
        citations_valid: true,
      });
    }
  });

  it('does not credit a root cause that is only ruled out', () => {
    const score = scoreScenario({ ...EXPECT_REPORT, root_cause: ['pool'] }, [
      turn({
        payload: report({
          conclusion: { text: 'It is not the connection pool', based_on_analysis_ids: ['a1'] },
        }),
      }),
    ]);
    expect(score.checks.root_cause_hit).toBe(false);
  });
});

describe('hedging: a conclusion commits to one primary cause', () => {
  it.each<[string, string, boolean]>([
    ['one cause', 'The order-service connection pool was exhausted by OrderReconcileJob', false],
    ['one cause and its symptom', 'order-7001 timed out because the connection pool was exhausted', false],
    ['a cause with ruled-out alternatives', 'Deadlocks, not lock wait timeouts; Redis is healthy', false],
    ['two causes with a hedge', 'Possibly the connection pool, or a deadlock', true],
    ['two causes with a Chinese hedge', '可能是连接池耗尽或者死锁', true],
    [
      'the list of eleven causes',
      'Possible causes: connection pool exhaustion, deadlocks, lock waits, disk full, Redis OOM, an expired certificate, DNS, rate limiting (429), a bad deploy, a downstream dependency, a payment channel',
      true,
    ],
    ['three causes without a hedge', 'Redis OOM, disk full and a deadlock broke checkout', true],
  ])('%s', (_name, conclusion, hedged) => {
    expect(hedgedCauses(conclusion) !== null).toBe(hedged);
  });

  it('fails the root-cause check of a hedged conclusion even when it names the right cause', () => {
    const score = scoreScenario({ ...EXPECT_REPORT, forbidden: [] }, [
      turn({
        payload: report({
          conclusion: {
            text: 'order-service: possible causes are pool exhaustion, a deadlock, disk full or Redis',
            based_on_analysis_ids: ['a1'],
          },
        }),
      }),
    ]);
    expect(score.checks.root_cause_hit).toBe(false);
    expect(score.problems.join('; ')).toMatch(/hedges between causes/);
  });

  it('counts each mention for one family only', () => {
    expect(causeFamiliesOf('lock wait timeouts on biz_order')).toEqual(['lock-wait']);
  });
});

describe('not scored: provider and transport failures are neither right nor wrong', () => {
  it.each(FAILURE_CODES.filter((code) => code.startsWith('MODEL_')))(
    'the contract failure %s (a provider class) is not scored',
    (failureCode) => {
      const score = scoreScenario(EXPECT_REPORT, [
        turn({ outcome: 'FAILED', contentType: null, payload: null, failureCode }),
      ]);
      expect(score.status).toBe('not_scored');
    },
  );

  it.each(['BUDGET_EXHAUSTED', 'KNOWLEDGE_UNAVAILABLE', 'INTERNAL_ERROR'] as const)(
    "the contract failure %s is the service's own answer: scored",
    (failureCode) => {
      const score = scoreScenario(EXPECT_REPORT, [
        turn({ outcome: 'FAILED', contentType: null, payload: null, failureCode }),
      ]);
      expect(score.status).toBe('fail');
    },
  );

  it.each<[string, Partial<TurnObservation>]>([
    [
      'a rate-limited model',
      {
        outcome: 'FAILED',
        contentType: null,
        payload: null,
        failureCode: 'MODEL_UNAVAILABLE',
        errorCode: 'MODEL_RATE_LIMITED',
      },
    ],
    ['a run timeout', { outcome: 'FAILED', contentType: null, payload: null, failureCode: 'RUN_TIMEOUT' }],
    [
      'a router that could not reach the model',
      { outcome: 'FAILED', contentType: null, payload: null, failureCode: 'ROUTING_UNAVAILABLE' },
    ],
    ['a lost stream', { outcome: null, contentType: null, payload: null }],
    ['an HTTP error', { outcome: null, contentType: null, payload: null, failureCode: 'HTTP_503' }],
    ['a reviewer whose provider failed', { ...FALLBACK, fallbackReason: 'SEMANTIC_MODEL_TIMEOUT' }],
    ['a repair whose provider failed', { ...FALLBACK, fallbackReason: 'REPAIR_MODEL_RATE_LIMITED' }],
  ])('%s', (_name, overrides) => {
    for (const expectation of [EXPECT_REPORT, EXPECT_NONE]) {
      const score = scoreScenario(expectation, [turn(overrides)]);
      expect(score.status).toBe('not_scored');
      expect(score.passed).toBe(false);
    }
  });

  it.each<[string, Partial<TurnObservation>]>([
    [
      'a model that never produced valid output',
      {
        outcome: 'FAILED',
        contentType: null,
        payload: null,
        failureCode: 'MODEL_UNAVAILABLE',
        errorCode: 'INVALID_OUTPUT',
      },
    ],
    ['a reviewer refusal', { ...FALLBACK, fallbackReason: 'SEMANTIC_UNSUPPORTED' }],
    ['a grounding refusal', { ...FALLBACK, fallbackReason: 'GROUNDING_CHECK_FAILED' }],
  ])('scores %s', (_name, overrides) => {
    expect(scoreScenario(EXPECT_REPORT, [turn(overrides)]).status).toBe('fail');
  });
});

const outcome = (observed: TurnObservation, expectation: Expectation = EXPECT_REPORT): RunOutcome => ({
  answer: observed.contentType ?? 'none',
  conclusion: null,
  fallback_reason: observed.fallbackReason,
  score: scoreScenario(expectation, [observed]),
});
const meta = (name: string, expected: 'report' | 'no_conclusion' = 'report') => ({
  name,
  title: 't',
  failure_class: 'c',
  expected_outcome: expected,
});
const WRONG = turn({
  payload: report({ conclusion: { text: 'The disk is full', based_on_analysis_ids: ['a1'] } }),
});

describe('totals: precision, recall, specificity and repeat spread', () => {
  const scenarios = [
    scenarioResult(meta('right'), [outcome(turn()), outcome(turn())]),
    scenarioResult(meta('flaky'), [outcome(turn()), outcome(WRONG)]),
    scenarioResult(meta('missed'), [outcome(FALLBACK), outcome(FALLBACK)]),
    scenarioResult(meta('quiet', 'no_conclusion'), [
      outcome(FALLBACK, EXPECT_NONE),
      outcome(WRONG, EXPECT_NONE),
    ]),
    scenarioResult(meta('rate-limited'), [
      outcome(
        turn({ outcome: 'FAILED', contentType: null, payload: null, failureCode: 'MODEL_UNAVAILABLE' }),
      ),
      outcome(turn()),
    ]),
  ];
  const totals = contenderRun('m', 'under_test', scenarios).totals;

  it('computes each rate over its own denominator and leaves not-scored runs out', () => {
    expect(totals).toMatchObject({ runs: 10, scored: 9, not_scored: 1, passed: 5, released: 6 });
    expect(totals.pass_rate).toBeCloseTo(5 / 9);
    // released with a conclusion: right×2, flaky×2, quiet's wrong one, rate-limited's second: 4 right of 6
    expect(totals.precision).toBeCloseTo(4 / 6);
    expect(totals.recall).toBeCloseTo(4 / 7);
    expect(totals.specificity).toBeCloseTo(1 / 2);
  });

  it('gives each scenario and the whole run a mean and spread over the repeats', () => {
    expect(scenarios[1].pass).toEqual({ mean: 0.5, stddev: 0.5, min: 0, max: 1 });
    expect(scenarios[1].result).toBe('1/2');
    expect(scenarios[0].result).toBe('pass');
    expect(scenarios[4].result).toBe('1/1 (1 not scored)');
    // repeat 1: right, flaky, quiet pass of 4 scored; repeat 2: right, rate-limited pass of 5
    expect(totals.repeat_pass_rate.mean).toBeCloseTo((3 / 4 + 2 / 5) / 2);
    expect(totals.repeat_pass_rate.min).toBeCloseTo(2 / 5);
    expect(totals.repeat_pass_rate.max).toBeCloseTo(3 / 4);
  });
});

describe('report output', () => {
  const underTest = contenderRun('stub-oracle', 'under_test', [
    scenarioResult(meta('ok-<b>'), [outcome(turn())]),
    scenarioResult(meta('bad'), [outcome(FALLBACK)]),
  ]);
  const baseline = contenderRun('always-fallback', 'baseline', [
    scenarioResult(meta('ok-<b>'), [outcome(FALLBACK)]),
    scenarioResult(meta('bad'), [outcome(FALLBACK)]),
  ]);
  const run = summarize('oracle', 'stub-oracle', new Date(Date.now() - 1000), 1, [underTest, baseline]);

  it('prints the contenders with precision, recall and specificity, then one row per scenario', () => {
    const table = markdownTable(run);
    expect(table).toContain('1/2 passed (50 %)');
    expect(table).toMatch(
      /^\| stub-oracle \| under test \| 1\/2 \| 50 % \| 50 % \| 100 % \| 50 % \| — \| 1 \| 0 \|$/m,
    );
    expect(table).toMatch(/^\| always-fallback \| baseline \| 0\/2 \| 0 % \|/m);
    expect(
      table.split('\n').filter((line) => line.startsWith('| ok-') || line.startsWith('| bad')),
    ).toHaveLength(2);
  });

  it('shows the repeat spread when runs repeat', () => {
    const repeated = summarize('model', 'm', new Date(), 2, [
      contenderRun('m', 'under_test', [scenarioResult(meta('flaky'), [outcome(turn()), outcome(WRONG)])]),
    ]);
    expect(markdownTable(repeated)).toMatch(/^\| flaky \|.*\| 50 % ± 50 % \| 1\/2 \|$/m);
    expect(htmlReport(repeated)).toContain('<line ');
  });

  it('writes a static HTML report with baselines, inline SVG bars, escaped text and no external resources', () => {
    const html = htmlReport(run);
    expect(html).toContain('<svg');
    expect(html).toContain('<th>always-fallback</th>');
    expect(html).toMatch(/precision/);
    expect(html).toContain('ok-&#60;b&#62;');
    expect(html).not.toMatch(/<script|(src|href)=["']?https?:/i);
  });
});

describe('the committed scenarios', () => {
  const scenarios = loadScenarios(join(__dirname, 'scenarios'));

  it('cover every failure class the issue names, with at least four no-cause cases', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(30);
    const classes = new Set(scenarios.map((scenario) => scenario.spec.failure_class));
    for (const required of [
      'db-pool-exhaustion',
      'slow-query-lock-wait',
      'payment-channel-timeout',
      'bad-deploy-config',
      'cache-redis-oom',
      'downstream-5xx',
      'dns-cert-expiry',
      'rate-limiting-429',
      'disk-full',
      'deadlock',
      'red-herring',
    ])
      expect(classes).toContain(required);
    expect(
      scenarios.filter((scenario) => scenario.spec.expect.outcome === 'no_conclusion').length,
    ).toBeGreaterThanOrEqual(4);
  });

  it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))(
    '%s has markers for a report, runbooks, logs and valid business SQL',
    (_name, scenario) => {
      if (scenario.spec.expect.outcome === 'report')
        expect(scenario.spec.expect.root_cause.length).toBeGreaterThan(0);
      expect(scenario.runbooks.length).toBeGreaterThan(0);
      expect(
        sqlStatements(scenario.businessSql).every((statement) => /^INSERT INTO \w+/.test(statement)),
      ).toBe(true);
      // The shared background traffic comes first, whatever the scenario adds.
      expect(sqlStatements(scenario.businessSql)[0]).toMatch(/^INSERT INTO user_account /);
    },
  );

  const reports = scenarios.filter((scenario) => scenario.spec.expect.outcome === 'report');
  const cjk = /[\u4e00-\u9fff]/u;

  it('ask in Chinese only and in English only', () => {
    expect(
      scenarios.some(
        (scenario) =>
          cjk.test(scenario.spec.query) && !/[a-z]{3,}/i.test(scenario.spec.query.replace(/order-\d+/g, '')),
      ),
    ).toBe(true);
    expect(scenarios.some((scenario) => !cjk.test(scenario.spec.query))).toBe(true);
    expect(scenarios.filter((scenario) => scenario.spec.follow_up).length).toBeGreaterThanOrEqual(2);
  });

  it.each(reports.map((scenario) => [scenario.name, scenario] as const))(
    '%s: its markers accept correct conclusions in Chinese and in English (bilingual markers)',
    (_name, scenario) => {
      const { samples } = scenario.spec.expect;
      expect(samples.some((sample) => cjk.test(sample))).toBe(true);
      expect(samples.some((sample) => !cjk.test(sample))).toBe(true);
      for (const text of samples) {
        const score = scoreScenario(scenario.spec.expect, [
          turn({
            payload: report({
              conclusion: { text, based_on_analysis_ids: ['a1'] },
              analysis: [
                { analysis_id: 'a1', kind: 'NORMAL', text: 'the cited evidence', reference_ids: [1, 2] },
              ],
              action_plan: [],
              recommendations: [],
            }),
          }),
        ]);
        expect([text, score.checks.root_cause_hit, score.checks.forbidden_absent]).toEqual([
          text,
          true,
          true,
        ]);
      }
    },
  );

  const withMetrics = scenarios.filter((scenario) => scenario.metrics);

  it('at least three ship metrics, asked in Chinese and in English, each expecting METRIC evidence', () => {
    expect(withMetrics.length).toBeGreaterThanOrEqual(3);
    expect(withMetrics.some((scenario) => cjk.test(scenario.spec.query))).toBe(true);
    expect(withMetrics.some((scenario) => !cjk.test(scenario.spec.query))).toBe(true);
    for (const scenario of withMetrics)
      expect([scenario.name, scenario.spec.expect.evidence]).toEqual([
        scenario.name,
        expect.arrayContaining(['METRIC']),
      ]);
  });

  it.each(withMetrics.map((scenario) => [scenario.name, scenario] as const))(
    '%s: its logs do not name the cause, and its oracle finds it with query_metrics in a NORMAL analysis',
    (_name, scenario) => {
      const cause = new RegExp(scenario.spec.expect.root_cause[0], 'iu');
      const lines = readdirSync(scenario.logsDir)
        .filter((file) => file.endsWith('.jsonl'))
        .flatMap((file) => readFileSync(join(scenario.logsDir, file), 'utf8').split('\n'))
        .filter(Boolean);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.filter((line) => cause.test(line))).toEqual([]);

      const agent = parseStubScript(scenario.oracle).roles['diagnosis-agent'];
      const metricCalls = new Set(
        agent
          .flatMap((reply) => reply.tool_calls ?? [])
          .filter((call) => call.name === 'query_metrics')
          .map((call) => call.id),
      );
      const draft = JSON.parse(agent.at(-1)!.content ?? '') as {
        analysis: { kind: string; tool_call_ids: string[] }[];
      };
      expect(
        draft.analysis.some(
          (item) => item.kind === 'NORMAL' && item.tool_call_ids.some((id) => metricCalls.has(id)),
        ),
      ).toBe(true);
    },
  );

  it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))(
    '%s: the always-same-cause baseline claims the database is down, citing a call the oracle cites',
    (_name, scenario) => {
      const script = baselineScript('always-same-cause', scenario.oracle);
      const finals = script.roles['diagnosis-agent'].filter((reply) => !reply.tool_calls?.length);
      expect(finals.length).toBeGreaterThan(0);
      for (const reply of finals) expect(reply.content).toContain(databaseIsDownDraft('').slice(0, 60));
      const fallback = baselineScript('always-fallback', scenario.oracle);
      expect(fallback.roles['semantic-guard'].every((reply) => reply.content?.includes('UNSUPPORTED'))).toBe(
        true,
      );
    },
  );
});
