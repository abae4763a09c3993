import type { CanonicalInvocation } from '@app/harness';
import type { Draft } from './draft.schema';
import { evidenceLimitations, withEvidenceLimitations } from './evidence-limitations';
import { checkEvidence, VerifiedSnapshot } from './evidence-rules';
import type { EvidenceLookup } from './verified-evidence';

// A log tool whose results declare their gap through the typed hook (as query_logs' `completeness`).
const TOOLS: EvidenceLookup = () => ({
  evidenceOf: () => ({
    source_type: 'LOG',
    source: 'APPLICATION (FILE)',
    scope: '',
    values: [],
    demo: false,
  }),
  gapOf: (result) => {
    const completeness = result.completeness as
      { unreadable_lines: number; unreadable_files: number } | undefined;
    return completeness ?? null;
  },
});

function record(id: string, completeness: unknown, found = true): CanonicalInvocation {
  return {
    tool_call_id: id,
    run_id: 'run-1',
    tool_name: 'query_logs',
    request: {},
    raw_response: {},
    agent_result: {
      evidence_status: found ? 'EVIDENCE_FOUND' : 'NO_EVIDENCE',
      tool_call_id: id,
      truncated: false,
      ...(completeness ? { completeness } : {}),
    },
    status: 'READY',
    evidence_status: found ? 'EVIDENCE_FOUND' : 'NO_EVIDENCE',
    error_code: null,
    started_at: 't0',
    ended_at: 't1',
  };
}

const RECORDS = new Map<string, CanonicalInvocation | null>([
  ['call_errors', record('call_errors', null)],
  ['call_pool', record('call_pool', { unreadable_lines: 1741, unreadable_files: 0 }, false)],
  ['call_gateway', record('call_gateway', { unreadable_lines: 0, unreadable_files: 1 }, false)],
]);

function draft(analysis: Draft['analysis']): Draft {
  return {
    conclusion: { text: 'The pool is healthy.', based_on_analysis_ids: [analysis[0].analysis_id] },
    analysis,
    action_plan: [],
    recommendations: [],
    limitations: { scope: 'payment-service, last 30 minutes', missing_info: ['no metrics'] },
  };
}

const negative = (id: string, calls: string[]) => ({
  analysis_id: id,
  kind: 'NEGATIVE_OBSERVATION' as const,
  text: 'No HikariPool records.',
  tool_call_ids: calls,
});
const normal = (id: string, calls: string[]) => ({
  analysis_id: id,
  kind: 'NORMAL' as const,
  text: 'x',
  tool_call_ids: calls,
});

function snapshotOf(value: Draft): VerifiedSnapshot {
  const checked = checkEvidence(value, 'run-1', RECORDS, TOOLS);
  if (!checked.ok) throw new Error(checked.violations.join('; '));
  return checked.snapshot;
}

describe('evidenceLimitations', () => {
  it.each<[string, Draft['analysis'], string[]]>([
    ['nothing unread: nothing added', [normal('a1', ['call_errors'])], []],
    [
      'a negative observation over unread lines: the scope and the observation',
      [negative('a1', ['call_pool'])],
      [
        'hold 1741 unreadable lines in their scope',
        'Analysis a1 reports an absence over a scope with 1741 unreadable lines',
      ],
    ],
    [
      'two gaps summed; only the negative observation is named',
      [normal('a1', ['call_errors']), negative('a2', ['call_pool', 'call_gateway'])],
      [
        '1741 unreadable lines and 1 unreadable file in their scope',
        'Analysis a2 reports an absence over a scope with 1741 unreadable lines and 1 unreadable file',
      ],
    ],
  ])('%s', (_name, analysis, expected) => {
    const value = draft(analysis);
    const limitations = evidenceLimitations(value, snapshotOf(value));
    expect(limitations).toHaveLength(expected.length);
    expected.forEach((text, index) => expect(limitations[index]).toContain(text));
  });

  it('appends them to missing_info once, leaving the rest of the draft as written', () => {
    const value = draft([negative('a1', ['call_pool'])]);
    const snapshot = snapshotOf(value);
    const released = withEvidenceLimitations(value, snapshot);
    expect(released.limitations.missing_info).toHaveLength(3);
    expect(released.limitations.missing_info[0]).toBe('no metrics');
    expect(withEvidenceLimitations(released, snapshot)).toEqual(released);
    expect({ ...released, limitations: value.limitations }).toEqual(value);
  });
});
