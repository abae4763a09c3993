import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Where a jest run spent its time, from the `--json` results file: wall time and summed file time per
 * test kind, and the slowest files. `node dist/test/support/jest-timings.js <results.json> [--slowest N]`
 * prints it (scripts/test.sh after the suite); `--failed` prints the failing files and tests instead
 * (scripts/timing-under-load.sh).
 */
export interface JestFileResult {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
  assertionResults: { fullName: string; status: string }[];
}

export type TestKind = 'unit' | 'medium' | 'e2e' | 'browser' | 'process';

/** The jest project of a test file (path relative to the repository), by jest.config.js's folders. */
export function kindOf(path: string): TestKind {
  const match = /^test\/(medium|e2e|browser|process)\//.exec(path);
  return match ? (match[1] as TestKind) : 'unit';
}

export interface KindTiming {
  kind: TestKind;
  files: number;
  tests: number;
  /** First file start to last file end (files of several kinds may overlap in time). */
  wallMs: number;
  /** Sum of the files' own durations (what one worker would take). */
  fileMs: number;
}

export function timingsByKind(files: JestFileResult[]): KindTiming[] {
  const byKind = new Map<TestKind, JestFileResult[]>();
  for (const file of files) {
    const kind = kindOf(file.name);
    byKind.set(kind, [...(byKind.get(kind) ?? []), file]);
  }
  return [...byKind.entries()].map(([kind, group]) => ({
    kind,
    files: group.length,
    tests: group.reduce((sum, file) => sum + file.assertionResults.length, 0),
    wallMs: Math.max(...group.map((file) => file.endTime)) - Math.min(...group.map((file) => file.startTime)),
    fileMs: group.reduce((sum, file) => sum + durationMs(file), 0),
  }));
}

export function slowestFiles(files: JestFileResult[], count: number): JestFileResult[] {
  return [...files].sort((a, b) => durationMs(b) - durationMs(a)).slice(0, count);
}

export function durationMs(file: JestFileResult): number {
  return Math.max(0, file.endTime - file.startTime);
}

export function renderTimings(files: JestFileResult[], slowest: number): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const lines = ['jest time by kind (wall: first start to last end; files: summed file durations):'];
  for (const kind of timingsByKind(files)) {
    lines.push(
      `  ${kind.kind.padEnd(8)} ${String(kind.files).padStart(4)} files ${String(kind.tests).padStart(5)} tests` +
        `  wall ${seconds(kind.wallMs).padStart(8)}  files ${seconds(kind.fileMs).padStart(8)}`,
    );
  }
  lines.push(`the ${Math.min(slowest, files.length)} slowest files:`);
  for (const file of slowestFiles(files, slowest)) {
    lines.push(`  ${seconds(durationMs(file)).padStart(8)}  ${kindOf(file.name).padEnd(8)} ${file.name}`);
  }
  return lines.join('\n');
}

export function renderFailures(files: JestFileResult[]): string {
  const failed = files.filter((file) => file.status !== 'passed');
  if (failed.length === 0) return 'no failing files';
  const lines = [`${failed.length} failing files:`];
  for (const file of failed) {
    lines.push(`  ${file.name}`);
    const tests = file.assertionResults.filter((test) => test.status === 'failed');
    // A file that fails before its tests run (setup, syntax) has no failed test to name.
    if (tests.length === 0) lines.push('    (the file failed outside its tests; see the log)');
    for (const test of tests) lines.push(`    ✕ ${test.fullName}`);
  }
  return lines.join('\n');
}

function main(argv: string[]): void {
  const failedOnly = argv.includes('--failed');
  const slowestAt = argv.indexOf('--slowest');
  const slowest = slowestAt >= 0 ? Number(argv[slowestAt + 1]) : 15;
  const path = argv.find((arg, index) => !arg.startsWith('--') && (slowestAt < 0 || index !== slowestAt + 1));
  if (!path || !Number.isInteger(slowest) || slowest < 0) {
    throw new Error('usage: jest-timings <results.json> [--slowest N] [--failed]');
  }
  const results = JSON.parse(readFileSync(path, 'utf8')) as { testResults: JestFileResult[] };
  // Jest names files by absolute path; the kinds are folders of the repository (the working directory).
  const files = results.testResults.map((file) => ({ ...file, name: relative(process.cwd(), file.name) }));
  process.stdout.write(`${failedOnly ? renderFailures(files) : renderTimings(files, slowest)}\n`);
}

if (require.main === module) main(process.argv.slice(2));
