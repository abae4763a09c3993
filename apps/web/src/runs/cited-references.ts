import type { TimelineEvent } from '@app/contracts';

/**
 * tool_call_id → reference number, from the run's RELEASED event (`ref_<n>: <tool_call_id>`), which is
 * where the server keeps the mapping: the released report itself carries no tool call ids.
 */
export function citedReferences(timeline: TimelineEvent[]): Map<string, number> {
  const released = timeline.find((event) => event.phase === 'RELEASE' && event.event_type === 'RELEASED');
  const cited = new Map<string, number>();
  for (const [key, value] of Object.entries(released?.details ?? {})) {
    const match = /^ref_([1-9]\d*)$/.exec(key);
    if (match && typeof value === 'string' && !cited.has(value)) cited.set(value, Number(match[1]));
  }
  return cited;
}
