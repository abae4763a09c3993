import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * `npm run eval` in oracle mode, as CI runs it: the built eval runner boots the built service once per
 * scenario (own databases and log dir), replays each scenario's oracle on the stub LLM over HTTP, and
 * must score every scenario correct.
 */
describe('npm run eval (oracle mode)', () => {
  const out = mkdtempSync(join(tmpdir(), 'e2e-eval-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('prints the table for every scenario and scores 100 %', async () => {
    const scenarios = readdirSync('eval/scenarios', { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const { stdout } = await run(process.execPath, ['dist/eval/run-eval.js', '--out', out], {
      env: { ...process.env, EVAL_CONCURRENCY: '3' },
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toContain(`${scenarios.length}/${scenarios.length} passed (100 %)`);
    for (const name of scenarios)
      expect(stdout).toMatch(new RegExp(`^\\| ${name} \\|.*\\*\\*pass\\*\\* \\|$`, 'm'));

    const result = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as {
      pass_rate: number;
      scenarios: { name: string; answer: string; score: { metrics: { tool_calls: number } } }[];
    };
    expect(result.pass_rate).toBe(1);
    expect(result.scenarios.map((scenario) => scenario.name)).toEqual(scenarios);
    expect(result.scenarios.every((scenario) => scenario.score.metrics.tool_calls > 0)).toBe(true);
    expect(result.scenarios.map((scenario) => scenario.answer)).toContain('FALLBACK');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script|(src|href)=["']?https?:/i);
    expect(existsSync(join(out, 'latest.md'))).toBe(true);
  }, 900_000);
});
