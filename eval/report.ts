import type { ScenarioScore } from './scorer';

export interface ScenarioResult {
  name: string;
  title: string;
  failure_class: string;
  expected_outcome: 'report' | 'no_conclusion';
  /** What the final turn released: DIAGNOSIS_REPORT, FALLBACK, or the failure. */
  answer: string;
  conclusion: string | null;
  score: ScenarioScore;
}

export interface EvalRun {
  mode: 'oracle' | 'model';
  model: string;
  started_at: string;
  duration_ms: number;
  passed: number;
  total: number;
  pass_rate: number;
  scenarios: ScenarioResult[];
}

export function summarize(
  mode: EvalRun['mode'],
  model: string,
  startedAt: Date,
  scenarios: ScenarioResult[],
): EvalRun {
  const passed = scenarios.filter((scenario) => scenario.score.passed).length;
  return {
    mode,
    model,
    started_at: startedAt.toISOString(),
    duration_ms: Date.now() - startedAt.getTime(),
    passed,
    total: scenarios.length,
    pass_rate: scenarios.length === 0 ? 0 : passed / scenarios.length,
    scenarios,
  };
}

const mark = (ok: boolean) => (ok ? '✓' : '✗');
const percent = (rate: number) => `${Math.round(rate * 1000) / 10} %`;

/** The printed summary: one row per scenario, then the totals. */
export function markdownTable(run: EvalRun): string {
  const rows = run.scenarios.map((scenario) => {
    const { checks, metrics } = scenario.score;
    return `| ${scenario.name} | ${scenario.failure_class} | ${scenario.expected_outcome} | ${scenario.answer} | ${mark(checks.root_cause_hit)} | ${mark(checks.forbidden_absent)} | ${mark(checks.outcome_correct)} | ${mark(checks.citations_valid)} | ${metrics.tool_calls} | ${metrics.total_tokens} | ${(metrics.latency_ms / 1000).toFixed(1)} | ${scenario.score.passed ? '**pass**' : 'FAIL'} |`;
  });
  return [
    `Eval (${run.mode}, model ${run.model}): ${run.passed}/${run.total} passed (${percent(run.pass_rate)})`,
    '',
    '| scenario | class | expected | answer | root cause | no forbidden | outcome | citations | tool calls | tokens | latency s | result |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A horizontal bar per scenario, inline SVG (no scripts, no external resources). */
function barChart(
  title: string,
  bars: { label: string; value: number; ok: boolean; text: string }[],
  max: number,
): string {
  const rowHeight = 24;
  const labelWidth = 230;
  const barWidth = 420;
  const height = bars.length * rowHeight + 30;
  const rows = bars
    .map((bar, index) => {
      const y = 24 + index * rowHeight;
      const width = max > 0 ? Math.max(2, Math.round((bar.value / max) * barWidth)) : 2;
      return [
        `<text x="${labelWidth - 8}" y="${y + 14}" text-anchor="end">${escapeHtml(bar.label)}</text>`,
        `<rect x="${labelWidth}" y="${y + 2}" width="${width}" height="${rowHeight - 6}" fill="${bar.ok ? '#2e7d32' : '#c62828'}"><title>${escapeHtml(bar.text)}</title></rect>`,
        `<text x="${labelWidth + width + 6}" y="${y + 14}">${escapeHtml(bar.text)}</text>`,
      ].join('');
    })
    .join('\n');
  return `<figure><svg role="img" aria-label="${escapeHtml(title)}" width="${labelWidth + barWidth + 160}" height="${height}" font-family="sans-serif" font-size="12" xmlns="http://www.w3.org/2000/svg"><text x="0" y="14" font-weight="bold">${escapeHtml(title)}</text>\n${rows}</svg></figure>`;
}

/** The static HTML report: totals, charts and the per-scenario table with each failure's reasons. */
export function htmlReport(run: EvalRun): string {
  const checksPassed = (scenario: ScenarioResult) =>
    Object.values(scenario.score.checks).filter(Boolean).length;
  const charts = [
    barChart(
      'Checks passed per scenario (of 4)',
      run.scenarios.map((scenario) => ({
        label: scenario.name,
        value: checksPassed(scenario),
        ok: scenario.score.passed,
        text: `${checksPassed(scenario)}/4 ${scenario.score.passed ? 'pass' : 'FAIL'}`,
      })),
      4,
    ),
    barChart(
      'Latency per scenario (s)',
      run.scenarios.map((scenario) => ({
        label: scenario.name,
        value: scenario.score.metrics.latency_ms,
        ok: scenario.score.passed,
        text: `${(scenario.score.metrics.latency_ms / 1000).toFixed(1)} s`,
      })),
      Math.max(...run.scenarios.map((scenario) => scenario.score.metrics.latency_ms), 1),
    ),
    barChart(
      'Tokens per scenario',
      run.scenarios.map((scenario) => ({
        label: scenario.name,
        value: scenario.score.metrics.total_tokens,
        ok: scenario.score.passed,
        text: `${scenario.score.metrics.total_tokens} tokens, ${scenario.score.metrics.tool_calls} tool calls`,
      })),
      Math.max(...run.scenarios.map((scenario) => scenario.score.metrics.total_tokens), 1),
    ),
  ];
  const rows = run.scenarios
    .map(
      (scenario) =>
        `<tr><td>${escapeHtml(scenario.name)}</td><td>${escapeHtml(scenario.failure_class)}</td><td>${scenario.expected_outcome}</td><td>${escapeHtml(scenario.answer)}</td><td>${escapeHtml(scenario.conclusion ?? '—')}</td><td>${scenario.score.passed ? 'pass' : 'FAIL'}</td><td>${escapeHtml(scenario.score.problems.join('; ') || '—')}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SuperBiz diagnosis eval</title>
<style>body{font-family:sans-serif;margin:2rem;max-width:1100px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}</style>
</head><body>
<h1>Diagnosis eval: ${run.passed}/${run.total} passed (${percent(run.pass_rate)})</h1>
<p>Mode ${run.mode}, model ${escapeHtml(run.model)}, started ${run.started_at}, ${(run.duration_ms / 1000).toFixed(1)} s.</p>
${charts.join('\n')}
<table><thead><tr><th>scenario</th><th>class</th><th>expected</th><th>answer</th><th>conclusion</th><th>result</th><th>problems</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}
