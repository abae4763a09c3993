import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const RESULTS_DIR = join(process.cwd(), 'bench', 'results');
const LATEST = join(RESULTS_DIR, 'latest.json');

export type Figures = Record<string, number | string>;

/** Merges one benchmark's figures into bench/results/latest.json and prints them as a table. */
export function reportBench(name: string, figures: Figures): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(readFileSync(LATEST, 'utf8')) as Record<string, unknown>;
  } catch {
    all = {};
  }
  all[name] = { ...figures, measured_at: new Date().toISOString() };
  writeFileSync(LATEST, `${JSON.stringify(all, null, 2)}\n`);
  const width = Math.max(...Object.keys(figures).map((key) => key.length));
  process.stdout.write(`\n${name}\n${'-'.repeat(name.length)}\n`);
  for (const [key, value] of Object.entries(figures)) {
    process.stdout.write(`  ${key.padEnd(width)}  ${typeof value === 'number' ? round(value) : value}\n`);
  }
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(3);
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Prints `rows` as an aligned table of `columns` ([key, title]); numbers that are not integers with `digits` decimals. */
export function printColumns(
  columns: readonly [string, string][],
  rows: readonly Record<string, string | number | undefined>[],
  digits: number,
): void {
  const cell = (value: string | number | undefined) =>
    typeof value === 'number'
      ? Number.isInteger(value)
        ? String(value)
        : value.toFixed(digits)
      : String(value ?? '');
  const widths = columns.map(([key, title]) =>
    Math.max(title.length, ...rows.map((row) => cell(row[key]).length)),
  );
  const line = (values: string[]) => `  ${values.map((value, i) => value.padEnd(widths[i])).join('  ')}\n`;
  process.stdout.write(`\n${line(columns.map(([, title]) => title))}`);
  for (const row of rows) process.stdout.write(line(columns.map(([key]) => cell(row[key]))));
}
