import type { ScenarioScore, ScoreStatus } from './scorer';

/** One run of one scenario by one model (a repeat). */
export interface RunOutcome {
  /** What the final turn released: DIAGNOSIS_REPORT, FALLBACK, or the failure. */
  answer: string;
  conclusion: string | null;
  fallback_reason: string | null;
  score: ScenarioScore;
}

/** Mean and (population) standard deviation; both null without values. */
export interface Spread {
  mean: number | null;
  stddev: number | null;
  min: number | null;
  max: number | null;
}

export interface ScenarioResult {
  name: string;
  title: string;
  failure_class: string;
  expected_outcome: 'report' | 'no_conclusion';
  /** The first run's answer, conclusion and score; every repeat is in `runs`. */
  answer: string;
  conclusion: string | null;
  score: ScenarioScore;
  runs: RunOutcome[];
  /** pass (1) / fail (0) over the scored runs, latency and tokens over all runs. */
  pass: Spread;
  latency_ms: Spread;
  total_tokens: Spread;
  /** pass, fail, not scored, or `k/n` when repeats disagree. */
  result: string;
}

export interface Totals {
  runs: number;
  scored: number;
  not_scored: number;
  passed: number;
  /** passed / scored runs. */
  pass_rate: number;
  /** Right released reports / released reports (a report with a conclusion); null when none was released. */
  precision: number | null;
  /** Passed runs of report scenarios / scored runs of report scenarios. */
  recall: number | null;
  /** Passed runs of no-cause scenarios / scored runs of no-cause scenarios. */
  specificity: number | null;
  released: number;
  /** The pass rate of each repeat (over its scored scenarios), summarised. */
  repeat_pass_rate: Spread;
}

export interface ContenderRun {
  name: string;
  role: 'under_test' | 'baseline';
  totals: Totals;
  scenarios: ScenarioResult[];
}

export interface EvalRun {
  mode: 'oracle' | 'model';
  model: string;
  started_at: string;
  duration_ms: number;
  repeat: number;
  /** The model under test's headline: passed / scored scenario runs. */
  passed: number;
  total: number;
  not_scored: number;
  pass_rate: number;
  scenarios: ScenarioResult[];
  /** The model under test first, then the baselines. */
  contenders: ContenderRun[];
}

export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) return { mean: null, stddev: null, min: null, max: null };
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  return { mean, stddev: Math.sqrt(variance), min: Math.min(...values), max: Math.max(...values) };
}

const scoredRuns = (runs: RunOutcome[]) => runs.filter((run) => run.score.status !== 'not_scored');

function resultOf(runs: RunOutcome[]): string {
  const scored = scoredRuns(runs);
  const passed = scored.filter((run) => run.score.passed).length;
  if (scored.length === 0) return 'not scored';
  if (passed === scored.length && scored.length === runs.length) return 'pass';
  if (passed === 0 && scored.length === runs.length) return 'FAIL';
  return `${passed}/${scored.length}${scored.length < runs.length ? ` (${runs.length - scored.length} not scored)` : ''}`;
}

/** A scenario's runs (one per repeat), summarised. */
export function scenarioResult(
  scenario: Pick<ScenarioResult, 'name' | 'title' | 'failure_class' | 'expected_outcome'>,
  runs: RunOutcome[],
): ScenarioResult {
  if (runs.length === 0) throw new Error(`scenario ${scenario.name} has no run`);
  const first = runs[0];
  return {
    ...scenario,
    answer: first.answer,
    conclusion: first.conclusion,
    score: first.score,
    runs,
    pass: spreadOf(scoredRuns(runs).map((run) => (run.score.passed ? 1 : 0))),
    latency_ms: spreadOf(runs.map((run) => run.score.metrics.latency_ms)),
    total_tokens: spreadOf(runs.map((run) => run.score.metrics.total_tokens)),
    result: resultOf(runs),
  };
}

const ratio = (hits: number, of: number) => (of === 0 ? null : hits / of);

export function totalsOf(scenarios: readonly ScenarioResult[]): Totals {
  const all = scenarios.flatMap((scenario) =>
    scenario.runs.map((run, repeat) => ({ scenario, run, repeat })),
  );
  const scored = all.filter(({ run }) => run.score.status !== 'not_scored');
  const passed = scored.filter(({ run }) => run.score.passed);
  const released = scored.filter(({ run }) => run.score.released_conclusion);
  const ofOutcome = (outcome: ScenarioResult['expected_outcome']) =>
    scored.filter(({ scenario }) => scenario.expected_outcome === outcome);
  const repeats = Math.max(0, ...scenarios.map((scenario) => scenario.runs.length));
  const perRepeat = Array.from({ length: repeats }, (_, repeat) => {
    const round = scored.filter((entry) => entry.repeat === repeat);
    return ratio(round.filter(({ run }) => run.score.passed).length, round.length);
  }).filter((rate): rate is number => rate !== null);
  return {
    runs: all.length,
    scored: scored.length,
    not_scored: all.length - scored.length,
    passed: passed.length,
    pass_rate: ratio(passed.length, scored.length) ?? 0,
    precision: ratio(released.filter(({ run }) => run.score.passed).length, released.length),
    recall: ratio(
      ofOutcome('report').filter(({ run }) => run.score.passed).length,
      ofOutcome('report').length,
    ),
    specificity: ratio(
      ofOutcome('no_conclusion').filter(({ run }) => run.score.passed).length,
      ofOutcome('no_conclusion').length,
    ),
    released: released.length,
    repeat_pass_rate: spreadOf(perRepeat),
  };
}

export function contenderRun(
  name: string,
  role: ContenderRun['role'],
  scenarios: ScenarioResult[],
): ContenderRun {
  return { name, role, totals: totalsOf(scenarios), scenarios };
}

export function summarize(
  mode: EvalRun['mode'],
  model: string,
  startedAt: Date,
  repeat: number,
  contenders: ContenderRun[],
): EvalRun {
  const underTest = contenders.find((contender) => contender.role === 'under_test');
  if (!underTest) throw new Error('no model under test');
  return {
    mode,
    model,
    started_at: startedAt.toISOString(),
    duration_ms: Date.now() - startedAt.getTime(),
    repeat,
    passed: underTest.totals.passed,
    total: underTest.totals.scored,
    not_scored: underTest.totals.not_scored,
    pass_rate: underTest.totals.pass_rate,
    scenarios: underTest.scenarios,
    contenders,
  };
}

const mark = (ok: boolean) => (ok ? '✓' : '✗');
const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10} %`);
const withSpread = (spread: Spread, format: (value: number) => string) =>
  spread.mean === null ? '—' : `${format(spread.mean)}${spread.stddev ? ` ± ${format(spread.stddev)}` : ''}`;
const statusMark = (status: ScoreStatus) =>
  ({ pass: '**pass**', fail: 'FAIL', not_scored: 'not scored' })[status];

/** One line per contender: what the model under test scores beside the baselines. */
export function contenderTable(run: EvalRun): string {
  const rows = run.contenders.map((contender) => {
    const t = contender.totals;
    return `| ${contender.name} | ${contender.role === 'under_test' ? 'under test' : 'baseline'} | ${t.passed}/${t.scored} | ${percent(t.pass_rate)} | ${withSpread(t.repeat_pass_rate, percent)} | ${percent(t.precision)} | ${percent(t.recall)} | ${percent(t.specificity)} | ${t.released} | ${t.not_scored} |`;
  });
  return [
    '| model | role | passed | pass rate | per repeat (mean ± sd) | precision | recall | specificity | released reports | not scored |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** The printed summary: the contenders, then one row per scenario of the model under test. */
export function markdownTable(run: EvalRun): string {
  const repeated = run.repeat > 1;
  const rows = run.scenarios.map((scenario) => {
    const { checks, metrics } = scenario.score;
    const result =
      scenario.result === 'pass'
        ? '**pass**'
        : scenario.runs.length === 1
          ? statusMark(scenario.score.status)
          : scenario.result;
    const latency = repeated
      ? withSpread(scenario.latency_ms, (ms) => (ms / 1000).toFixed(1))
      : (metrics.latency_ms / 1000).toFixed(1);
    const passMean = repeated ? ` ${withSpread(scenario.pass, percent)} |` : '';
    return `| ${scenario.name} | ${scenario.failure_class} | ${scenario.expected_outcome} | ${scenario.answer} | ${mark(checks.root_cause_hit)} | ${mark(checks.forbidden_absent)} | ${mark(checks.outcome_correct)} | ${mark(checks.citations_valid)} | ${metrics.tool_calls} | ${metrics.total_tokens} | ${latency} |${passMean} ${result} |`;
  });
  const notScored = run.not_scored > 0 ? `, ${run.not_scored} not scored` : '';
  return [
    `Eval (${run.mode}, model ${run.model}${repeated ? `, ${run.repeat} repeats` : ''}): ${run.passed}/${run.total} passed (${percent(run.pass_rate)})${notScored}`,
    '',
    contenderTable(run),
    '',
    `| scenario | class | expected | answer | root cause | no forbidden | outcome | citations | tool calls | tokens | latency s |${repeated ? ' pass (mean ± sd) |' : ''} result |`,
    `| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |${repeated ? ' --- |' : ''} --- |`,
    ...rows,
  ].join('\n');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A horizontal bar per item, inline SVG (no scripts, no external resources); `whisker` draws ± spread. */
function barChart(
  title: string,
  bars: { label: string; value: number; ok: boolean; text: string; whisker?: number }[],
  max: number,
): string {
  const rowHeight = 24;
  const labelWidth = 230;
  const barWidth = 420;
  const height = bars.length * rowHeight + 30;
  const scale = (value: number) => (max > 0 ? Math.round((value / max) * barWidth) : 0);
  const rows = bars
    .map((bar, index) => {
      const y = 24 + index * rowHeight;
      const width = Math.max(2, scale(bar.value));
      const whisker =
        bar.whisker && bar.whisker > 0
          ? `<line x1="${labelWidth + Math.max(0, scale(bar.value - bar.whisker))}" x2="${labelWidth + scale(Math.min(max, bar.value + bar.whisker))}" y1="${y + 11}" y2="${y + 11}" stroke="#000" stroke-width="2"/>`
          : '';
      return [
        `<text x="${labelWidth - 8}" y="${y + 14}" text-anchor="end">${escapeHtml(bar.label)}</text>`,
        `<rect x="${labelWidth}" y="${y + 2}" width="${width}" height="${rowHeight - 6}" fill="${bar.ok ? '#2e7d32' : '#c62828'}"><title>${escapeHtml(bar.text)}</title></rect>`,
        whisker,
        `<text x="${labelWidth + width + 6}" y="${y + 14}">${escapeHtml(bar.text)}</text>`,
      ].join('');
    })
    .join('\n');
  return `<figure><svg role="img" aria-label="${escapeHtml(title)}" width="${labelWidth + barWidth + 220}" height="${height}" font-family="sans-serif" font-size="12" xmlns="http://www.w3.org/2000/svg"><text x="0" y="14" font-weight="bold">${escapeHtml(title)}</text>\n${rows}</svg></figure>`;
}

const htmlPercent = (rate: number | null) => escapeHtml(percent(rate));

/** The static HTML report: contenders beside the baselines, charts with repeat spread, and every scenario. */
export function htmlReport(run: EvalRun): string {
  const contenderRows = run.contenders
    .map((contender) => {
      const t = contender.totals;
      return `<tr><td>${escapeHtml(contender.name)}</td><td>${contender.role === 'under_test' ? 'under test' : 'baseline'}</td><td>${t.passed}/${t.scored}</td><td>${htmlPercent(t.pass_rate)}</td><td>${escapeHtml(withSpread(t.repeat_pass_rate, percent))}</td><td>${htmlPercent(t.precision)}</td><td>${htmlPercent(t.recall)}</td><td>${htmlPercent(t.specificity)}</td><td>${t.released}</td><td>${t.not_scored}</td></tr>`;
    })
    .join('\n');
  const charts = [
    barChart(
      'Precision, recall, specificity per model',
      run.contenders.flatMap((contender) =>
        (['precision', 'recall', 'specificity'] as const).map((metric) => ({
          label: `${contender.name} ${metric}`,
          value: contender.totals[metric] ?? 0,
          ok: contender.role === 'under_test',
          text: percent(contender.totals[metric]),
        })),
      ),
      1,
    ),
    barChart(
      `Pass rate per scenario (${run.model}, ${run.repeat} repeat${run.repeat === 1 ? '' : 's'}, ± sd)`,
      run.scenarios.map((scenario) => ({
        label: scenario.name,
        value: scenario.pass.mean ?? 0,
        whisker: scenario.pass.stddev ?? 0,
        ok: scenario.result === 'pass',
        text: `${withSpread(scenario.pass, percent)} ${scenario.result}`,
      })),
      1,
    ),
    barChart(
      'Latency per scenario (s, ± sd)',
      run.scenarios.map((scenario) => ({
        label: scenario.name,
        value: scenario.latency_ms.mean ?? 0,
        whisker: scenario.latency_ms.stddev ?? 0,
        ok: scenario.result === 'pass',
        text: `${withSpread(scenario.latency_ms, (ms) => (ms / 1000).toFixed(1))} s`,
      })),
      Math.max(...run.scenarios.map((scenario) => scenario.latency_ms.max ?? 0), 1),
    ),
    barChart(
      'Tokens per scenario (± sd)',
      run.scenarios.map((scenario) => ({
        label: scenario.name,
        value: scenario.total_tokens.mean ?? 0,
        whisker: scenario.total_tokens.stddev ?? 0,
        ok: scenario.result === 'pass',
        text: `${withSpread(scenario.total_tokens, (tokens) => String(Math.round(tokens)))} tokens, ${scenario.score.metrics.tool_calls} tool calls`,
      })),
      Math.max(...run.scenarios.map((scenario) => scenario.total_tokens.max ?? 0), 1),
    ),
  ];
  const baselines = run.contenders.filter((contender) => contender.role === 'baseline');
  const rows = run.scenarios
    .map((scenario) => {
      const baselineCells = baselines
        .map((baseline) => {
          const same = baseline.scenarios.find((item) => item.name === scenario.name);
          return `<td>${escapeHtml(same ? `${same.result} (${same.answer}${same.runs[0]?.fallback_reason ? ` ${same.runs[0].fallback_reason}` : ''})` : '—')}</td>`;
        })
        .join('');
      const problems = scenario.runs
        .map((runOutcome, index) =>
          runOutcome.score.problems.length > 0
            ? `${scenario.runs.length > 1 ? `#${index + 1}: ` : ''}${runOutcome.score.problems.join('; ')}`
            : '',
        )
        .filter(Boolean)
        .join(' | ');
      return `<tr><td>${escapeHtml(scenario.name)}</td><td>${escapeHtml(scenario.failure_class)}</td><td>${scenario.expected_outcome}</td><td>${escapeHtml(scenario.answer)}</td><td>${escapeHtml(scenario.conclusion ?? '—')}</td><td>${escapeHtml(scenario.result)}</td>${baselineCells}<td>${escapeHtml(problems || '—')}</td></tr>`;
    })
    .join('\n');
  const baselineHeads = baselines.map((baseline) => `<th>${escapeHtml(baseline.name)}</th>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SuperBiz diagnosis eval</title>
<style>body{font-family:sans-serif;margin:2rem;max-width:1200px}table{border-collapse:collapse;margin-bottom:1rem}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}</style>
</head><body>
<h1>Diagnosis eval: ${run.passed}/${run.total} passed (${htmlPercent(run.pass_rate)})${run.not_scored > 0 ? `, ${run.not_scored} not scored` : ''}</h1>
<p>Mode ${run.mode}, model ${escapeHtml(run.model)}, ${run.repeat} repeat${run.repeat === 1 ? '' : 's'}, started ${run.started_at}, ${(run.duration_ms / 1000).toFixed(1)} s. Precision: right released reports / released reports; recall: over report scenarios; specificity: over no-cause scenarios. Runs that ended in a provider or transport failure are not scored.</p>
<h2>Model under test and baselines</h2>
<table><thead><tr><th>model</th><th>role</th><th>passed</th><th>pass rate</th><th>per repeat (mean ± sd)</th><th>precision</th><th>recall</th><th>specificity</th><th>released reports</th><th>not scored</th></tr></thead>
<tbody>
${contenderRows}
</tbody></table>
${charts.join('\n')}
<h2>Scenarios</h2>
<table><thead><tr><th>scenario</th><th>class</th><th>expected</th><th>answer</th><th>conclusion</th><th>result</th>${baselineHeads}<th>problems</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}
