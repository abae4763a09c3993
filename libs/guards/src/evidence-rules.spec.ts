import type { CanonicalInvocation } from '@app/harness';
import { Draft } from './draft.schema';
import { checkEvidence } from './evidence-rules';
import type { EvidenceLookup } from './verified-evidence';

// The tool's own evidence reading decides source and values; the guard only adds status and truncation.
const TOOLS: EvidenceLookup = (name) =>
  name === 'query_logs'
    ? {
        evidenceOf: (result) => ({
          source_type: 'LOG',
          source: `${String((result.scope as { topic: string }).topic)} (${String(result.source_kind)})`,
          demo: result.source_kind === 'MOCK',
          scope: '',
          values: result.patterns,
        }),
      }
    : undefined;

const RUN = 'run-1';

function record(id: string, overrides: Partial<CanonicalInvocation> = {}): CanonicalInvocation {
  return {
    tool_call_id: id,
    run_id: RUN,
    tool_name: 'query_logs',
    request: {},
    raw_response: { secret: 'RAW' },
    agent_result: {
      evidence_status: 'EVIDENCE_FOUND',
      tool_call_id: id,
      source_kind: 'MOCK',
      scope: { topic: 'APPLICATION', query: 'HikariPool', start_time: 't0', end_time: 't1' },
      match_count: 84,
      patterns: [{ count: 84, example: 'HikariPool-1 - Connection is not available' }],
      events: [],
      truncated: false,
    },
    status: 'READY',
    evidence_status: 'EVIDENCE_FOUND',
    error_code: null,
    started_at: 't0',
    ended_at: 't1',
    ...overrides,
  };
}

const RECORDS = new Map<string, CanonicalInvocation | null>([
  ['call_found', record('call_found')],
  ['call_empty', record('call_empty', { evidence_status: 'NO_EVIDENCE' })],
  [
    'call_error',
    record('call_error', {
      status: 'ERROR',
      evidence_status: 'ERROR',
      agent_result: { evidence_status: 'ERROR', tool_call_id: 'call_error', truncated: false },
    }),
  ],
  [
    'call_projecting',
    record('call_projecting', { status: 'PROJECTING', evidence_status: null, agent_result: null }),
  ],
  ['call_other_run', record('call_other_run', { run_id: 'run-2' })],
]);

function draft(overrides: Partial<Draft> = {}): Draft {
  return {
    conclusion: { text: 'The pool is exhausted.', based_on_analysis_ids: ['a1'] },
    analysis: [
      {
        analysis_id: 'a1',
        kind: 'NORMAL',
        text: 'Active connections at 50/50.',
        tool_call_ids: ['call_found'],
      },
    ],
    action_plan: [
      {
        action: 'Find the long transaction.',
        based_on_analysis_ids: ['a1'],
        requires_human_confirmation: false,
      },
    ],
    recommendations: [{ text: 'Alert on pool waiting threads.', based_on_analysis_ids: ['a1'] }],
    limitations: { scope: 'order-service, last 30 minutes (MOCK logs)', missing_info: [] },
    ...overrides,
  };
}

const analysis = (id: string, kind: 'NORMAL' | 'NEGATIVE_OBSERVATION', ids: string[]) => ({
  analysis_id: id,
  kind,
  text: `analysis ${id}`,
  tool_call_ids: ids,
});

describe('checkEvidence (EvidenceGuard rules)', () => {
  it('passes a well-formed draft and groups verified evidence by analysis, without ids or raw data', () => {
    const result = checkEvidence(draft(), RUN, RECORDS, TOOLS);
    if (!result.ok) throw new Error(result.violations.join('; '));
    expect(result.snapshot.byAnalysis).toEqual([
      {
        analysis_id: 'a1',
        analysis_text: 'Active connections at 50/50.',
        kind: 'NORMAL',
        verified_evidence: [
          expect.objectContaining({
            source_type: 'LOG',
            source: 'APPLICATION (MOCK)',
            evidence_status: 'EVIDENCE_FOUND',
            demo: true,
          }),
        ],
      },
    ]);
    expect(JSON.stringify(result.snapshot.byAnalysis)).not.toMatch(/call_found|RAW/);
    expect([...result.snapshot.cited.keys()]).toEqual(['call_found']);
  });

  it('accepts a negative observation that cites NO_EVIDENCE, and a null conclusion', () => {
    const result = checkEvidence(
      draft({
        conclusion: null,
        analysis: [
          analysis('a1', 'NORMAL', ['call_found']),
          analysis('a2', 'NEGATIVE_OBSERVATION', ['call_empty']),
        ],
      }),
      RUN,
      RECORDS,
      TOOLS,
    );
    expect(result.ok).toBe(true);
  });

  it.each<[string, Partial<Draft>, string]>([
    [
      'duplicate analysis ids',
      { analysis: [analysis('a1', 'NORMAL', ['call_found']), analysis('a1', 'NORMAL', ['call_found'])] },
      'analysis_id a1 is used more than once',
    ],
    [
      'an analysis without citations',
      { analysis: [analysis('a1', 'NORMAL', [])] },
      'analysis a1 cites no tool_call_id',
    ],
    [
      'a fabricated tool_call_id',
      { analysis: [analysis('a1', 'NORMAL', ['call_invented'])] },
      'analysis a1 cites call_invented, which is not a tool call of this run',
    ],
    [
      'an id of another run',
      { analysis: [analysis('a1', 'NORMAL', ['call_other_run'])] },
      'analysis a1 cites call_other_run, which is not a tool call of this run',
    ],
    [
      'an ERROR call',
      { analysis: [analysis('a1', 'NEGATIVE_OBSERVATION', ['call_error'])] },
      'analysis a1 cites call_error, which failed (ERROR) and cannot be evidence',
    ],
    [
      'a call without agent_result',
      { analysis: [analysis('a1', 'NORMAL', ['call_projecting'])] },
      'analysis a1 cites call_projecting, which has no verified result',
    ],
    [
      'NO_EVIDENCE in a NORMAL analysis',
      { analysis: [analysis('a1', 'NORMAL', ['call_empty'])] },
      'analysis a1 is NORMAL but cites call_empty, which found no evidence',
    ],
    [
      'a conclusion on a missing analysis',
      { conclusion: { text: 'x', based_on_analysis_ids: ['a9'] } },
      'conclusion refers to analysis a9, which does not exist',
    ],
    [
      'a conclusion based on nothing',
      { conclusion: { text: 'x', based_on_analysis_ids: [] } },
      'conclusion is not based on any analysis',
    ],
    [
      'a dangling action plan reference',
      { action_plan: [{ action: 'x', based_on_analysis_ids: ['a2'], requires_human_confirmation: true }] },
      'action_plan[0] refers to analysis a2, which does not exist',
    ],
    [
      'an action plan based on nothing',
      { action_plan: [{ action: 'x', based_on_analysis_ids: [], requires_human_confirmation: false }] },
      'action_plan[0] is not based on any analysis',
    ],
    [
      'a dangling recommendation',
      { recommendations: [{ text: 'x', based_on_analysis_ids: ['zz'] }] },
      'recommendations[0] refers to analysis zz, which does not exist',
    ],
  ])('rejects %s', (_name, overrides, violation) => {
    const result = checkEvidence(draft(overrides), RUN, RECORDS, TOOLS);
    expect(result).toEqual({
      ok: false,
      violations: expect.arrayContaining([expect.stringContaining(violation)]),
    });
  });
});
