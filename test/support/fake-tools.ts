import { z } from 'zod';
import type { HarnessToolDefinition } from '@app/harness';

export interface FakeRaw {
  lines: string[];
  secret_marker: string;
}

/**
 * A read-only evidence tool for Harness tests: returns `count` lines containing a marker that only the
 * raw response carries, and projects them to a bounded list without the marker.
 */
export function fakeLogTool(
  overrides: Partial<HarnessToolDefinition<{ query: string; count: number }, FakeRaw>> = {},
) {
  const definition: HarnessToolDefinition<{ query: string; count: number }, FakeRaw> = {
    name: 'query_logs',
    description: 'Fake log search for tests.',
    schema: z.object({ query: z.string().min(1), count: z.number().int().min(0).max(100_000) }),
    readOnly: true,
    failureCodes: [],
    countedList: 'events',
    execute: async ({ query, count }) => ({
      lines: Array.from({ length: count }, (_, i) => `${query} line ${i}`),
      secret_marker: 'RAW-ONLY-MARKER-7f3a',
    }),
    project: (raw, args) => ({
      evidenceStatus: raw.lines.length > 0 ? 'EVIDENCE_FOUND' : 'NO_EVIDENCE',
      result: {
        scope: { query: args.query },
        match_count: raw.lines.length,
        returned_count: raw.lines.length,
        events: raw.lines,
      },
      truncated: false,
    }),
    summarizeArgs: (args) => ({ count: args.count }),
    label: 'fake logs',
    evidenceOf: (result) => ({
      source_type: 'LOG',
      source: 'fake logs',
      scope: '',
      values: result.events,
      demo: false,
    }),
    ...overrides,
  };
  return definition;
}

/** A tool that waits until its signal aborts (or `ms` passes) and reports what it saw. */
export function slowTool(ms: number, seen: { aborted: boolean; reason?: unknown }) {
  return fakeLogTool({
    execute: (_args, signal) =>
      new Promise<FakeRaw>((resolve) => {
        const timer = setTimeout(() => resolve({ lines: ['late'], secret_marker: 'x' }), ms);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          seen.aborted = true;
          seen.reason = signal.reason;
        });
      }),
  });
}
