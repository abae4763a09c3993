import { RunCancelled } from '@app/harness';
import { draftJson, SUPPORTED, UNSUPPORTED } from '@test/support/diagnosis-scripts';
import type { StubReply } from '@test/support/stub-llm/stub-script';
import { agentTurnsOnFakeLogs, diagnosisKit } from '@test/support/unit-diagnosis';
import { MemoryJournalStore, startUnitRun, UnitRunOptions } from '@test/support/unit-harness';

const QUERY = 'order-123 payment times out';
const GROUNDED = draftJson({ cite: ['call_logs_1'] });
const CITES_NOTHING_REAL = draftJson({ cite: ['call_never_made'] });
const WITH_LINK = draftJson({ text: 'see https://evil.example.com/fix for the fix' });
const UNGROUNDED = draftJson({ text: '977 HikariPool connection timeouts in payment-gateway' });
const GARBAGE = { content: 'not a verdict' };
const EMPTY_DRAFT = JSON.stringify({
  conclusion: null,
  analysis: [],
  action_plan: [],
  recommendations: [],
  limitations: { scope: '', missing_info: [] },
});
/** The grounded draft with camelCase keys and JSON5 habits (single quotes, trailing commas). */
const CAMEL_JSON5 = GROUNDED.replace(
  /"(based_on_analysis_ids|analysis_id|tool_call_ids|action_plan|requires_human_confirmation|missing_info)"/g,
  (_m, key: string) => `'${key.replace(/_([a-z])/g, (_x, c: string) => c.toUpperCase())}'`,
).replace(/}$/, ',}');
const parsedGrounded = JSON.parse(GROUNDED) as {
  conclusion: { text: string };
  analysis: { text: string }[];
  action_plan: { action: string }[];
  recommendations: { text: string }[];
  limitations: { scope: string; missing_info: string[] };
};
/** The grounded draft's texts written as a Markdown report. */
const MARKDOWN = [
  `# Diagnosis\n\n**Conclusion:** ${parsedGrounded.conclusion.text}`,
  `## Analysis\n- ${parsedGrounded.analysis[0].text} (call_logs_1)`,
  `## Actions\n- ${parsedGrounded.action_plan[0].action}`,
  `## Recommendations\n- ${parsedGrounded.recommendations[0].text}`,
  `## Limitations\n${parsedGrounded.limitations.scope}; ${parsedGrounded.limitations.missing_info[0]}`,
].join('\n\n');
/** A role's budget with no model call left. */
const NO_CALLS = { maxModelCalls: 0, maxInputTokens: 1000, maxOutputTokens: 1000, maxTotalTokens: 2000 };

/** Each way the pipeline ends, the script that gets it there, and what it must record. */
const CASES: {
  name: string;
  roles: Record<string, StubReply[]>;
  harnessEnv?: Record<string, string>;
  limits?: UnitRunOptions['limits'];
  timeoutMs?: number;
  outcome: 'SUCCESS' | 'FALLBACK';
  type?: string;
  reason?: string;
  statuses: string[];
}[] = [
  {
    name: 'a grounded draft the reviewer supports',
    roles: { 'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED), 'semantic-guard': [SUPPORTED] },
    outcome: 'SUCCESS',
    statuses: ['EVIDENCE_VALIDATING', 'SEMANTIC_VALIDATING', 'RELEASING'],
  },
  {
    name: 'a draft with camelCase keys written as JSON5',
    roles: { 'diagnosis-agent': agentTurnsOnFakeLogs(CAMEL_JSON5), 'semantic-guard': [SUPPORTED] },
    outcome: 'SUCCESS',
    statuses: ['EVIDENCE_VALIDATING', 'SEMANTIC_VALIDATING', 'RELEASING'],
  },
  {
    name: 'a Markdown report the repair converts, texts unchanged',
    roles: {
      'diagnosis-agent': agentTurnsOnFakeLogs(MARKDOWN),
      'evidence-repair': [{ content: GROUNDED }],
      'semantic-guard': [SUPPORTED],
    },
    outcome: 'SUCCESS',
    statuses: ['EVIDENCE_VALIDATING', 'EVIDENCE_REPAIRING', 'SEMANTIC_VALIDATING', 'RELEASING'],
  },
  {
    name: 'a Markdown report the repair rewrites',
    roles: {
      'diagnosis-agent': agentTurnsOnFakeLogs(MARKDOWN),
      'evidence-repair': [{ content: draftJson({ cite: ['call_logs_1'], marker: 'REWRITTEN' }) }],
    },
    outcome: 'FALLBACK',
    type: 'EVIDENCE_VALIDATION_FAILED',
    reason: 'EVIDENCE_VALIDATION_FAILED',
    statuses: ['EVIDENCE_VALIDATING', 'EVIDENCE_REPAIRING'],
  },
  {
    name: 'an answer that stays unreadable after the repair',
    roles: {
      'diagnosis-agent': agentTurnsOnFakeLogs('I could not finish the report.'),
      'evidence-repair': [{ content: 'Sorry, still no JSON.' }],
    },
    outcome: 'FALLBACK',
    type: 'EVIDENCE_VALIDATION_FAILED',
    reason: 'DRAFT_UNREADABLE',
    statuses: ['EVIDENCE_VALIDATING', 'EVIDENCE_REPAIRING'],
  },
  {
    name: 'a report with no conclusion and no references',
    roles: { 'diagnosis-agent': agentTurnsOnFakeLogs(EMPTY_DRAFT) },
    outcome: 'FALLBACK',
    type: 'EVIDENCE_VALIDATION_FAILED',
    reason: 'DRAFT_EMPTY',
    statuses: ['EVIDENCE_VALIDATING'],
  },
  {
    name: 'citations still wrong after the repair',
    roles: {
      'diagnosis-agent': agentTurnsOnFakeLogs(CITES_NOTHING_REAL),
      'evidence-repair': [{ content: CITES_NOTHING_REAL }],
    },
    outcome: 'FALLBACK',
    type: 'EVIDENCE_VALIDATION_FAILED',
    reason: 'EVIDENCE_VALIDATION_FAILED',
    statuses: ['EVIDENCE_VALIDATING', 'EVIDENCE_REPAIRING'],
  },
  {
    name: 'a repair that changes the text',
    roles: {
      'diagnosis-agent': agentTurnsOnFakeLogs(CITES_NOTHING_REAL),
      'evidence-repair': [{ content: draftJson({ cite: ['call_logs_1'], marker: 'REWRITTEN' }) }],
    },
    outcome: 'FALLBACK',
    type: 'EVIDENCE_VALIDATION_FAILED',
    reason: 'EVIDENCE_VALIDATION_FAILED',
    statuses: ['EVIDENCE_VALIDATING', 'EVIDENCE_REPAIRING'],
  },
  {
    name: 'a repair call the provider refuses',
    roles: {
      'diagnosis-agent': agentTurnsOnFakeLogs(CITES_NOTHING_REAL),
      'evidence-repair': [{ error: 503 }],
    },
    outcome: 'FALLBACK',
    type: 'EVIDENCE_VALIDATION_FAILED',
    reason: 'REPAIR_MODEL_UNAVAILABLE',
    statuses: ['EVIDENCE_VALIDATING', 'EVIDENCE_REPAIRING'],
  },
  {
    name: 'a repair call over the model-call budget',
    roles: { 'diagnosis-agent': agentTurnsOnFakeLogs(CITES_NOTHING_REAL) },
    limits: { roles: { 'evidence-repair': NO_CALLS } },
    outcome: 'FALLBACK',
    type: 'EVIDENCE_VALIDATION_FAILED',
    reason: 'REPAIR_BUDGET_MODEL_CALLS',
    statuses: ['EVIDENCE_VALIDATING', 'EVIDENCE_REPAIRING'],
  },
  {
    name: 'a link the evidence does not hold (release checks)',
    roles: { 'diagnosis-agent': agentTurnsOnFakeLogs(WITH_LINK) },
    outcome: 'FALLBACK',
    type: 'SEMANTIC_UNSUPPORTED',
    reason: 'RELEASE_CHECK_FAILED',
    statuses: ['EVIDENCE_VALIDATING'],
  },
  {
    name: 'a quantity and a name the evidence does not hold (grounding)',
    roles: { 'diagnosis-agent': agentTurnsOnFakeLogs(UNGROUNDED) },
    outcome: 'FALLBACK',
    type: 'SEMANTIC_UNSUPPORTED',
    reason: 'GROUNDING_CHECK_FAILED',
    statuses: ['EVIDENCE_VALIDATING'],
  },
  {
    name: 'an UNSUPPORTED verdict',
    roles: { 'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED), 'semantic-guard': [UNSUPPORTED] },
    outcome: 'FALLBACK',
    type: 'SEMANTIC_UNSUPPORTED',
    reason: 'SEMANTIC_UNSUPPORTED',
    statuses: ['EVIDENCE_VALIDATING', 'SEMANTIC_VALIDATING'],
  },
  {
    name: 'two unreadable verdicts (retry matrix exhausted)',
    roles: { 'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED), 'semantic-guard': [GARBAGE, GARBAGE] },
    outcome: 'FALLBACK',
    type: 'SEMANTIC_UNAVAILABLE',
    reason: 'SEMANTIC_INVALID_OUTPUT',
    statuses: ['EVIDENCE_VALIDATING', 'SEMANTIC_VALIDATING'],
  },
  {
    name: 'a reviewer input over the character limit',
    roles: { 'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED) },
    harnessEnv: { HARNESS_SEMANTIC_MAX_INPUT_CHARS: '1000' },
    outcome: 'FALLBACK',
    type: 'SEMANTIC_UNAVAILABLE',
    reason: 'SEMANTIC_INPUT_TOO_LARGE',
    statuses: ['EVIDENCE_VALIDATING', 'SEMANTIC_VALIDATING'],
  },
  {
    name: 'a review over the model-call budget',
    roles: { 'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED) },
    limits: { roles: { 'semantic-guard': NO_CALLS } },
    outcome: 'FALLBACK',
    type: 'SEMANTIC_UNAVAILABLE',
    reason: 'SEMANTIC_BUDGET_MODEL_CALLS',
    statuses: ['EVIDENCE_VALIDATING', 'SEMANTIC_VALIDATING'],
  },
  {
    name: 'a review still running when the run deadline passes',
    roles: {
      'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED),
      'semantic-guard': [{ ...SUPPORTED, delay_ms: 10_000 }],
    },
    harnessEnv: { HARNESS_GUARD_TIME_RESERVE_MS: '300' },
    timeoutMs: 1000,
    outcome: 'FALLBACK',
    type: 'SEMANTIC_UNAVAILABLE',
    reason: 'SEMANTIC_DEADLINE_EXCEEDED',
    statuses: ['EVIDENCE_VALIDATING', 'SEMANTIC_VALIDATING'],
  },
];

describe('DiagnosisPipeline: release or fallback', () => {
  it.each(CASES)('$name → $outcome $reason', async (c) => {
    const journal = new MemoryJournalStore();
    const kit = diagnosisKit(c.roles, { harnessEnv: c.harnessEnv, journal });
    const { ctx } = startUnitRun({ journal, limits: c.limits, timeoutMs: c.timeoutMs });
    const result = await kit.pipeline.run(ctx, QUERY, null, kit.observer);
    await ctx.journal.flush();
    ctx.close();

    expect(kit.statuses.filter((code) => !code.startsWith('TOOL_') && !code.includes('PLAN'))).toEqual(
      c.statuses,
    );
    const release = journal.events
      .filter((event) => event.phase === 'RELEASE')
      .map((event) => event.eventType);
    if (c.outcome === 'SUCCESS') {
      expect(result).toMatchObject({ outcome: 'SUCCESS', conclusion: expect.stringContaining('HikariCP') });
      if (result.outcome !== 'SUCCESS') return;
      expect(result.report.references).toMatchObject([
        { reference_id: 1, source_type: 'LOG', source: 'fake logs' },
      ]);
      expect(result.report.analysis[0].reference_ids).toEqual([1]);
      expect(release).toEqual(['RELEASED']);
      return;
    }
    expect(result).toMatchObject({
      outcome: 'FALLBACK',
      fallbackReason: c.reason,
      fallback: { type: c.type },
    });
    // The fallback is fixed text: none of the draft's own words reach it.
    expect(JSON.stringify(result)).not.toContain('DRAFT-MARKER');
    expect(release.at(-1)).toBe('FALLBACK');
    expect(journal.events.at(-1)?.details).toEqual({ type: c.type, reason: c.reason });
  });

  it('a client that leaves during the review stops the run instead of falling back', async () => {
    const client = new AbortController();
    const journal = new MemoryJournalStore();
    const kit = diagnosisKit(
      {
        'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED),
        'semantic-guard': [{ ...SUPPORTED, delay_ms: 10_000 }],
      },
      { journal },
    );
    const { ctx } = startUnitRun({ journal, parentSignal: client.signal });
    const running = kit.pipeline.run(ctx, QUERY, null, {
      status: (code) => {
        if (code === 'SEMANTIC_VALIDATING') setTimeout(() => client.abort(), 10);
      },
    });
    await expect(running).rejects.toBeInstanceOf(RunCancelled);
    ctx.close();
  });

  it('flushes the agent loop before the guards start (phase boundary)', async () => {
    const journal = new MemoryJournalStore();
    const kit = diagnosisKit(
      { 'diagnosis-agent': agentTurnsOnFakeLogs(GROUNDED), 'semantic-guard': [SUPPORTED] },
      { journal },
    );
    const { ctx } = startUnitRun({ journal });
    await kit.pipeline.run(ctx, QUERY, null, {
      status: (code) => {
        if (code === 'EVIDENCE_VALIDATING')
          expect(journal.events.map((event) => event.eventType)).toContain('AGENT_FINISHED');
      },
    });
    ctx.close();
  });
});
