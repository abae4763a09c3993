import type { RunTrace } from '@app/contracts';
import { offsetMs, shownDurationMs } from './run-timing';

const at = (ms: number) => new Date(Date.UTC(2026, 11, 3, 4, 0, 0, ms)).toISOString();
const trace = (status: string, timelineMs: number[], durationMs: number | null) =>
  ({
    run: { status, created_at: at(0), duration_ms: durationMs },
    timeline: timelineMs.map((ms) => ({ phase: 'RUN', event_type: 'E', details: null, at: at(ms) })),
  }) as unknown as RunTrace;

describe('run timing on the trace page', () => {
  it('measures offsets from the run start', () => {
    expect(offsetMs(trace('SUCCESS', [], null), at(1234))).toBe(1234);
  });

  it.each([
    ['an ended run: up to its last event', trace('SUCCESS', [5, 800, 1260], 1190), 1260],
    ['a running run: the stored value', trace('RUNNING', [5, 800], null), null],
    ['no timeline: the stored value', trace('FAILED', [], 42), 42],
  ])('%s', (_name, value, expected) => {
    expect(shownDurationMs(value)).toBe(expected);
  });
});
