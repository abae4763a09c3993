import { join } from 'node:path';
import { htmlReport, markdownTable, summarize } from './report';
import { Expectation, loadScenarios, sqlStatements } from './scenario';
import { scoreScenario, TurnObservation } from './scorer';

const EXPECT_REPORT: Expectation = {
  outcome: 'report',
  root_cause: ['pool|连接池', 'order-service'],
  forbidden: ['redis', 'certificate'],
  evidence: ['LOG', 'MYSQL'],
};
const EXPECT_NONE: Expectation = {
  outcome: 'no_conclusion',
  root_cause: [],
  forbidden: ['pool'],
  evidence: [],
};

const LOG_REF = { reference_id: 1, source_type: 'LOG', source: 'APPLICATION (FILE)' };
const SQL_REF = { reference_id: 2, source_type: 'MYSQL', source: 'order_readonly' };

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
      passed: true,
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
      'a failed run',
      turn({ outcome: 'FAILED', contentType: null, payload: null, failureCode: 'MODEL_UNAVAILABLE' }),
      EXPECT_REPORT,
      'outcome_correct',
      /MODEL_UNAVAILABLE/,
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
      turn({ payload: report({ references: [{ ...LOG_REF, source: 'APPLICATION (MOCK)' }, SQL_REF] }) }),
      EXPECT_REPORT,
      'citations_valid',
      /not from the FILE log source/,
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
  ])('marks %s wrong', (_name, observed, expectation, check, problem) => {
    const score = scoreScenario(expectation, [observed]);
    expect(score.passed).toBe(false);
    expect(score.checks[check]).toBe(false);
    expect(score.problems.join('; ')).toMatch(problem);
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

describe('report output', () => {
  const run = summarize('oracle', 'stub-oracle', new Date(Date.now() - 1000), [
    {
      name: 'ok-<b>',
      title: 't',
      failure_class: 'c',
      expected_outcome: 'report',
      answer: 'DIAGNOSIS_REPORT',
      conclusion: 'x',
      score: scoreScenario(EXPECT_REPORT, [turn()]),
    },
    {
      name: 'bad',
      title: 't',
      failure_class: 'c',
      expected_outcome: 'report',
      answer: 'FALLBACK',
      conclusion: null,
      score: scoreScenario(EXPECT_REPORT, [FALLBACK]),
    },
  ]);

  it('prints one table row per scenario and the pass rate', () => {
    const table = markdownTable(run);
    expect(table).toContain('1/2 passed (50 %)');
    expect(
      table.split('\n').filter((line) => line.startsWith('| ok-') || line.startsWith('| bad')),
    ).toHaveLength(2);
  });

  it('writes a static HTML report with inline SVG bars, escaped text and no external resources', () => {
    const html = htmlReport(run);
    expect(html).toContain('<svg');
    expect(html.match(/<rect /g)).toHaveLength(6);
    expect(html).toContain('ok-&#60;b&#62;');
    expect(html).not.toMatch(/<script|(src|href)=["']?https?:/i);
  });
});

describe('the committed scenarios', () => {
  const scenarios = loadScenarios(join(__dirname, 'scenarios'));

  it('cover every failure class the issue names, with at least two no-cause cases', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(12);
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
    ).toBeGreaterThanOrEqual(2);
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
});
