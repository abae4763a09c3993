import { ModelCallFailed } from '@app/harness';
import { draftJson } from '@test/support/diagnosis-scripts';
import { fakeLogTool } from '@test/support/fake-tools';
import type { StubReply } from '@test/support/stub-llm/stub-script';
import { diagnosisKit, LOG_LINES } from '@test/support/unit-diagnosis';
import { MemoryJournalStore, startUnitRun } from '@test/support/unit-harness';

const GOOD = draftJson({ cite: ['call_logs_1'] });
const WRONG_CITE = draftJson({ cite: ['call_never_made'] });

/** A run with one READY log call (call_logs_1) in the store, and the guard under test. */
async function guardRun(repair: StubReply[], options: { readsFail?: boolean; storeLost?: boolean } = {}) {
  const journal = new MemoryJournalStore();
  const kit = diagnosisKit({ 'evidence-repair': repair }, { journal });
  const { ctx } = startUnitRun({ journal });
  await kit.evidenceGuard.open(ctx);
  const tool = fakeLogTool({ execute: () => Promise.resolve({ lines: LOG_LINES, secret_marker: 'x' }) });
  await kit.boundary.execute(ctx, tool, 'call_logs_1', { query: 'HikariPool', count: 2 });
  kit.store.readsFail = options.readsFail ?? false;
  if (options.storeLost) kit.store.lose(ctx.runId);
  let repairs = 0;
  const check = async (answer: string) => {
    try {
      return await kit.evidenceGuard.guard(ctx, answer, () => (repairs += 1));
    } finally {
      await ctx.journal.flush();
    }
  };
  return { kit, ctx, journal, check, repairs: () => repairs };
}

const checkedEvents = (journal: MemoryJournalStore) =>
  journal.events.filter((event) => event.eventType === 'EVIDENCE_CHECKED').map((event) => event.details);

describe('EvidenceGuard', () => {
  it('a draft whose citations are READY calls of this run passes without a repair', async () => {
    const run = await guardRun([]);
    const result = await run.check(GOOD);
    expect(result.ok).toBe(true);
    expect(run.repairs()).toBe(0);
    expect(run.kit.model.callsFor('evidence-repair')).toHaveLength(0);
    expect(checkedEvents(run.journal)).toEqual([{ attempt: 1, ok: true, violations: 0 }]);
    if (result.ok) expect([...result.check.snapshot.cited.keys()]).toEqual(['call_logs_1']);
    run.ctx.close();
  });

  it.each([
    { name: 'a citation of a call never made', answer: WRONG_CITE },
    { name: 'a draft that is not JSON', answer: `Here is my draft: ${GOOD.slice(0, 40)}` },
  ])('$name gets one repair, told the violations and the real calls', async ({ answer }) => {
    const run = await guardRun([{ content: GOOD }]);
    const result = await run.check(answer);
    expect(run.repairs()).toBe(1);
    expect(run.kit.model.callsFor('evidence-repair')).toHaveLength(1);
    const input = JSON.parse(String(run.kit.model.callsFor('evidence-repair')[0].messages[0].content)) as {
      violations: string[];
      available_tool_calls: unknown[];
    };
    expect(input.violations.length).toBeGreaterThan(0);
    // The repair sees the calls this run really made (its journal was written first).
    expect(input.available_tool_calls).toEqual([
      { tool_call_id: 'call_logs_1', tool_name: 'query_logs', evidence_status: 'EVIDENCE_FOUND' },
    ]);
    // A wrong citation is fixed by structure alone; a draft that never parsed has no text to keep, so
    // whatever the repair writes counts as new content.
    if (answer === WRONG_CITE) {
      expect(result.ok).toBe(true);
      expect(checkedEvents(run.journal).at(-1)).toMatchObject({
        attempt: 2,
        ok: true,
        content_changed: false,
      });
    } else {
      expect(result.ok).toBe(false);
      expect(checkedEvents(run.journal).at(-1)).toMatchObject({
        attempt: 2,
        ok: false,
        content_changed: true,
      });
    }
    run.ctx.close();
  });

  it('a repair that rewrites the text is refused even when its citations are right', async () => {
    const run = await guardRun([{ content: draftJson({ cite: ['call_logs_1'], marker: 'REWRITTEN' }) }]);
    const result = await run.check(WRONG_CITE);
    expect(result.ok).toBe(false);
    expect(checkedEvents(run.journal).at(-1)).toMatchObject({ attempt: 2, ok: false, content_changed: true });
    run.ctx.close();
  });

  it('a repair that is still wrong fails the guard', async () => {
    const run = await guardRun([{ content: WRONG_CITE }]);
    expect(await run.check(WRONG_CITE)).toMatchObject({ ok: false });
    expect(checkedEvents(run.journal).map((details) => details?.ok)).toEqual([false, false]);
    run.ctx.close();
  });

  it('an unreachable evidence store verifies nothing and says so', async () => {
    const run = await guardRun([{ content: GOOD }], { readsFail: true });
    const result = await run.check(GOOD);
    expect(result).toEqual({
      ok: false,
      violations: ['the evidence store is unavailable, so no citation can be verified'],
      storeUnavailable: true,
    });
    run.ctx.close();
  });

  it.each([
    { name: 'a citation of a call made', answer: GOOD },
    { name: 'a citation of a call never made', answer: WRONG_CITE },
  ])(
    'a store that lost the run (restarted or flushed): $name is a store outage, with no repair',
    async ({ answer }) => {
      const run = await guardRun([{ content: GOOD }], { storeLost: true });
      const result = await run.check(answer);
      expect(result).toEqual({
        ok: false,
        violations: ["the evidence store lost this run's records, so no citation can be verified"],
        storeUnavailable: true,
        storeLost: true,
      });
      expect(run.repairs()).toBe(0);
      expect(run.kit.model.callsFor('evidence-repair')).toHaveLength(0);
      expect(checkedEvents(run.journal)).toEqual([
        { attempt: 1, ok: false, violations: 1, error_code: 'EVIDENCE_STORE_LOST' },
      ]);
      run.ctx.close();
    },
  );

  it('a run whose start could not be marked (store down then) still verifies a draft normally', async () => {
    const journal = new MemoryJournalStore();
    const kit = diagnosisKit({}, { journal });
    const { ctx } = startUnitRun({ journal });
    kit.store.readsFail = true;
    await expect(kit.evidenceGuard.open(ctx)).resolves.toBeUndefined();
    kit.store.readsFail = false;
    const tool = fakeLogTool({ execute: () => Promise.resolve({ lines: LOG_LINES, secret_marker: 'x' }) });
    await kit.boundary.execute(ctx, tool, 'call_logs_1', { query: 'HikariPool', count: 2 });
    expect((await kit.evidenceGuard.guard(ctx, GOOD, () => undefined)).ok).toBe(true);
    ctx.close();
  });

  it('a repair call that fails surfaces as the model failure (the pipeline falls back on it)', async () => {
    const run = await guardRun([{ error: 500 }]);
    const failure = run.check(WRONG_CITE);
    await expect(failure).rejects.toBeInstanceOf(ModelCallFailed);
    await expect(failure).rejects.toMatchObject({ kind: 'TRANSPORT', code: 'MODEL_UNAVAILABLE' });
    run.ctx.close();
  });
});
