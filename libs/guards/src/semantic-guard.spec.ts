import { BudgetExhausted } from '@app/harness';
import { draftJson, SUPPORTED, UNSUPPORTED } from '@test/support/diagnosis-scripts';
import { fakeLogTool } from '@test/support/fake-tools';
import type { StubReply } from '@test/support/stub-llm/stub-script';
import { diagnosisKit, LOG_LINES } from '@test/support/unit-diagnosis';
import { MemoryJournalStore, startUnitRun, UnitRunOptions } from '@test/support/unit-harness';

const GARBAGE = { content: 'I think it is fine' };
const WRONG_SHAPE = { content: '{"verdict":"MAYBE","reason":"?"}' };

/** Reviews the grounded draft on one READY log call with the scripted semantic-guard replies. */
async function review(
  replies: StubReply[],
  options: { harnessEnv?: Record<string, string>; run?: UnitRunOptions } = {},
) {
  const journal = new MemoryJournalStore();
  const kit = diagnosisKit({ 'semantic-guard': replies }, { journal, harnessEnv: options.harnessEnv });
  const { ctx } = startUnitRun({ journal, ...options.run });
  const tool = fakeLogTool({ execute: () => Promise.resolve({ lines: LOG_LINES, secret_marker: 'x' }) });
  await kit.boundary.execute(ctx, tool, 'call_logs_1', { query: 'HikariPool', count: 2 });
  const verified = await kit.evidenceGuard.verify(ctx, draftJson({ cite: ['call_logs_1'] }));
  if (!verified.ok) throw new Error('fixture draft does not verify');
  try {
    const outcome = await kit.semanticGuard.review(
      ctx,
      'why do payments time out?',
      verified.draft,
      verified.check.snapshot,
    );
    return { outcome, kit, journal };
  } finally {
    await ctx.journal.flush();
    ctx.close();
  }
}

describe('SemanticGuard', () => {
  it.each([
    {
      name: 'SUPPORTED',
      replies: [SUPPORTED],
      outcome: { kind: 'VERDICT', verdict: { verdict: 'SUPPORTED' } },
      calls: 1,
    },
    {
      name: 'UNSUPPORTED',
      replies: [UNSUPPORTED],
      outcome: { kind: 'VERDICT', verdict: { verdict: 'UNSUPPORTED' } },
      calls: 1,
    },
    {
      name: 'unreadable, then SUPPORTED',
      replies: [GARBAGE, SUPPORTED],
      outcome: { kind: 'VERDICT' },
      calls: 2,
    },
    {
      name: 'two unreadable answers',
      replies: [GARBAGE, GARBAGE],
      outcome: { kind: 'UNAVAILABLE', reason: 'SEMANTIC_INVALID_OUTPUT' },
      calls: 2,
    },
    {
      name: 'two off-schema verdicts',
      replies: [WRONG_SHAPE, WRONG_SHAPE],
      outcome: { kind: 'UNAVAILABLE', reason: 'SEMANTIC_INVALID_OUTPUT' },
      calls: 2,
    },
    {
      name: 'two provider 500s',
      replies: [{ error: 500 }, { error: 500 }],
      outcome: { kind: 'UNAVAILABLE', reason: 'SEMANTIC_TRANSPORT' },
      calls: 2,
    },
  ])('$name → $outcome.kind after $calls call(s)', async ({ replies, outcome, calls }) => {
    const { outcome: got, kit, journal } = await review(replies);
    expect(got).toMatchObject(outcome);
    expect(kit.model.callsFor('semantic-guard')).toHaveLength(calls);
    const verdicts = journal.events.filter((event) => event.eventType === 'SEMANTIC_VERDICT');
    expect(verdicts).toHaveLength(got.kind === 'VERDICT' ? 1 : 0);
  });

  it('a 401 is final: not retried, and it keeps its class for the fallback reason', async () => {
    await expect(review([{ error: 401 }, SUPPORTED])).rejects.toMatchObject({ code: 'MODEL_AUTH_FAILED' });
  });

  it('a call slower than its timeout is a TIMEOUT failure, retried once', async () => {
    const { outcome, kit } = await review(
      [
        { ...SUPPORTED, delay_ms: 2_000 },
        { ...SUPPORTED, delay_ms: 2_000 },
      ],
      {
        harnessEnv: { HARNESS_SEMANTIC_CALL_TIMEOUT_MS: '100', HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS: '5000' },
      },
    );
    expect(outcome).toEqual({ kind: 'UNAVAILABLE', reason: 'SEMANTIC_TIMEOUT' });
    expect(kit.model.callsFor('semantic-guard')).toHaveLength(2);
  });

  it('sees the draft without tool_call_ids, and the verified evidence', async () => {
    const { kit } = await review([SUPPORTED]);
    const input = String(kit.model.callsFor('semantic-guard')[0].messages[0].content);
    expect(input).not.toContain('call_logs_1');
    expect(input).toContain(LOG_LINES[1]);
    expect(kit.model.callsFor('semantic-guard')[0].tools).toEqual([]);
  });

  it('an input over the character limit is not sent', async () => {
    const { outcome, kit, journal } = await review([SUPPORTED], {
      harnessEnv: { HARNESS_SEMANTIC_MAX_INPUT_CHARS: '1000' },
    });
    expect(outcome).toEqual({ kind: 'UNAVAILABLE', reason: 'SEMANTIC_INPUT_TOO_LARGE' });
    expect(kit.model.callsFor('semantic-guard')).toHaveLength(0);
    expect(journal.events.map((event) => event.eventType)).toContain('SEMANTIC_SKIPPED');
  });

  it('a spent budget is not a verdict: BudgetExhausted goes to the pipeline', async () => {
    const none = { maxModelCalls: 0, maxInputTokens: 1000, maxOutputTokens: 1000, maxTotalTokens: 2000 };
    await expect(
      review([SUPPORTED], { run: { limits: { roles: { 'semantic-guard': none } } } }),
    ).rejects.toBeInstanceOf(BudgetExhausted);
  });
});
