import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { scaled } from '../support/test-timeouts';

// The longest test or hook here needs up to 900 s on an idle machine; the suite's
// time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(900_000));

const run = promisify(execFile);

interface Result {
  name: string;
  expected_outcome: string;
  answer: string;
  result: string;
  runs: { fallback_reason: string | null }[];
  score: { metrics: { tool_calls: number } };
}
interface Contender {
  name: string;
  role: string;
  totals: {
    passed: number;
    scored: number;
    released: number;
    precision: number | null;
    recall: number | null;
    specificity: number | null;
  };
  scenarios: Result[];
}

/**
 * `npm run eval` in oracle mode, as CI runs it: the built eval runner boots the built service once per
 * scenario (own databases and log dir), replays each scenario's oracle on the stub LLM over HTTP, then
 * the two baselines on the same service, and the oracle must score every scenario correct.
 */
describe('npm run eval (oracle mode)', () => {
  const out = mkdtempSync(join(tmpdir(), 'e2e-eval-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('scores the oracle 100 % beside the baselines, and the grounding check refuses every misattribution', async () => {
    const scenarios = readdirSync('eval/scenarios', { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(scenarios.length).toBeGreaterThanOrEqual(30);
    const { stdout, stderr } = await run(process.execPath, ['dist/eval/run-eval.js', '--out', out], {
      env: { ...process.env, EVAL_CONCURRENCY: '3' },
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toContain(`${scenarios.length}/${scenarios.length} passed (100 %)`);
    for (const name of scenarios) {
      expect(stdout).toMatch(new RegExp(`^\\| ${name} \\|.*\\*\\*pass\\*\\* \\|$`, 'm'));
      // a line per scenario while it runs
      expect(stderr).toMatch(new RegExp(`^eval: \\[\\d+/${scenarios.length}\\] ${name}: oracle pass, `, 'm'));
    }

    const result = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as {
      pass_rate: number;
      scenarios: Result[];
      contenders: Contender[];
    };
    expect(result.pass_rate).toBe(1);
    expect(result.scenarios.map((scenario) => scenario.name)).toEqual(scenarios);
    expect(result.scenarios.every((scenario) => scenario.score.metrics.tool_calls > 0)).toBe(true);
    expect(result.scenarios.map((scenario) => scenario.answer)).toContain('FALLBACK');
    // The grounding check releases every oracle answer meant for release; it refuses only the one oracle
    // that guesses a cause its evidence does not name.
    expect(
      result.scenarios
        .filter((scenario) => scenario.runs[0].fallback_reason === 'GROUNDING_CHECK_FAILED')
        .map((scenario) => scenario.name),
    ).toEqual(['no-cause-unknown-order']);

    const [oracle, fallback, sameCause] = result.contenders;
    const noCause = result.scenarios.filter((scenario) => scenario.expected_outcome === 'no_conclusion');
    expect(noCause.length).toBeGreaterThanOrEqual(4);
    expect(oracle).toMatchObject({ name: 'oracle', role: 'under_test' });
    expect(oracle.totals).toMatchObject({ precision: 1, recall: 1, specificity: 1 });
    // Always falling back earns exactly the no-cause scenarios, and releases nothing.
    expect(fallback.name).toBe('always-fallback');
    expect(fallback.totals).toMatchObject({ passed: noCause.length, released: 0, recall: 0, specificity: 1 });
    // "The database is down" on every scenario, with a reviewer that approves everything: never released.
    expect(sameCause.name).toBe('always-same-cause');
    expect(sameCause.totals).toMatchObject({ released: 0, recall: 0, scored: scenarios.length });
    for (const scenario of sameCause.scenarios) {
      expect(scenario.answer).toBe('FALLBACK');
      expect(['GROUNDING_CHECK_FAILED', 'EVIDENCE_VALIDATION_FAILED']).toContain(
        scenario.runs[0].fallback_reason,
      );
    }
    expect(
      sameCause.scenarios.filter((scenario) => scenario.runs[0].fallback_reason === 'GROUNDING_CHECK_FAILED')
        .length,
    ).toBeGreaterThanOrEqual(scenarios.length - noCause.length);

    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<svg');
    for (const text of ['always-fallback', 'always-same-cause', 'precision', 'recall', 'specificity', '± sd'])
      expect(html).toContain(text);
    expect(html).not.toMatch(/<script|(src|href)=["']?https?:/i);
    expect(existsSync(join(out, 'latest.md'))).toBe(true);
  });
});
