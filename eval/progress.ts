import type { ScenarioResult } from './report';

/** One line per finished scenario, printed as it finishes, so a long eval shows where it is. */
export function progressLine(result: ScenarioResult, done: number, total: number, ms: number): string {
  const verdict = result.score.passed ? 'PASS' : 'FAIL';
  return `[${done}/${total}] ${verdict} ${result.name} (${result.answer}, ${(ms / 1000).toFixed(1)} s)\n`;
}
