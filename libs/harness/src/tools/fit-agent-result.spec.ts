import { byteLength, fitAgentResult } from './fit-agent-result';

const base = { evidence_status: 'EVIDENCE_FOUND' as const, tool_call_id: 'call_1', truncated: false };

describe('fitAgentResult', () => {
  it('returns a result within the cap unchanged', () => {
    const result = { ...base, rows: [{ a: 1 }], returned_count: 1 };
    expect(fitAgentResult(result, 10_000, 'rows')).toBe(result);
  });

  it('drops trailing items of the longest list, flags truncation and keeps returned_count in sync', () => {
    const result = {
      ...base,
      patterns: [{ p: 'x'.repeat(50) }],
      events: Array.from({ length: 40 }, (_, i) => ({ i, message: 'y'.repeat(50) })),
      returned_count: 40,
    };
    const fitted = fitAgentResult(result, 1200, 'events')!;
    expect(byteLength(fitted)).toBeLessThanOrEqual(1200);
    expect(fitted.truncated).toBe(true);
    expect(fitted.patterns).toEqual(result.patterns);
    const events = fitted.events as { i: number }[];
    expect(events.map((e) => e.i)).toEqual(Array.from({ length: events.length }, (_, i) => i));
    expect(fitted.returned_count).toBe(events.length);
    expect(result.events).toHaveLength(40);
  });

  it('gives up (null) when the fixed fields alone exceed the cap', () => {
    expect(fitAgentResult({ ...base, scope: 'z'.repeat(500), rows: [] }, 200)).toBeNull();
  });
});
