import type { TimelineEvent } from '@app/contracts';
import { citedReferences } from './cited-references';

const event = (phase: string, event_type: string, details: TimelineEvent['details']): TimelineEvent => ({
  phase,
  event_type,
  details,
  at: '2026-12-04T00:00:00.000Z',
});

describe('citedReferences', () => {
  it('maps each cited tool call to its reference number from the RELEASED event', () => {
    const timeline = [
      event('TOOL', 'TOOL_FINISHED', { ref_1: 'not-this' }),
      event('RELEASE', 'RELEASED', { references: 2, ref_1: 'call_logs.1', ref_2: 'call_kb.2' }),
    ];
    expect([...citedReferences(timeline)]).toEqual([
      ['call_logs.1', 1],
      ['call_kb.2', 2],
    ]);
  });

  it('is empty for a run that released nothing, and ignores keys and values of other shapes', () => {
    expect(citedReferences([event('RELEASE', 'FALLBACK', { type: 'X' })]).size).toBe(0);
    expect([
      ...citedReferences([event('RELEASE', 'RELEASED', { ref_0: 'a', ref_x: 'b', ref_3: 7, ref_4: 'c' })]),
    ]).toEqual([['c', 4]]);
  });
});
