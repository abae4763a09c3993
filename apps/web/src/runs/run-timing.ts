import type { RunTrace } from '@app/contracts';

/** Milliseconds from the run's start to `iso`: the timeline's offsets. */
export function offsetMs(trace: Pick<RunTrace, 'run'>, iso: string): number {
  return new Date(iso).getTime() - new Date(trace.run.created_at).getTime();
}

/**
 * The run's duration as the page shows it: up to its last timeline event once it has ended, so the
 * summary and the timeline's last offset are the same number (the stored duration_ms is measured by
 * the app between its own steps and misses the writes around them). While the run goes on, or
 * without a timeline, the stored value.
 */
export function shownDurationMs(trace: Pick<RunTrace, 'run' | 'timeline'>): number | null {
  const last = trace.timeline.at(-1);
  if (trace.run.status === 'RUNNING' || !last) return trace.run.duration_ms;
  return offsetMs(trace, last.at);
}
