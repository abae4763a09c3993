import type { ScenarioResult } from './report';
import { progressLine } from './progress';

describe('progressLine', () => {
  const result = (passed: boolean) =>
    ({ name: 'db-pool', answer: 'DIAGNOSIS_REPORT', score: { passed } }) as unknown as ScenarioResult;
  it.each([
    [true, '[2/5] PASS db-pool (DIAGNOSIS_REPORT, 12.3 s)\n'],
    [false, '[2/5] FAIL db-pool (DIAGNOSIS_REPORT, 12.3 s)\n'],
  ])('passed=%s', (passed, line) => expect(progressLine(result(passed), 2, 5, 12_345)).toBe(line));
});
