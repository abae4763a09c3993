import type { FinishRun } from './run.repository';
import { JournalBatch, JournalStore, RunJournal } from './run-journal';

const FINISH: FinishRun = {
  status: 'SUCCESS',
  releaseOutcome: 'SUCCESS',
  modelCalls: 1,
  toolCalls: 0,
  inputTokens: 1,
  outputTokens: 1,
  totalTokens: 2,
  durationMs: 5,
};

const STEP = {
  stepIndex: 1,
  role: 'system-chat',
  attempt: 1,
  status: 'OK' as const,
  errorCode: null,
  finishReason: 'stop',
  toolCallCount: 0,
  inputTokens: 1,
  outputTokens: 1,
  totalTokens: 2,
  startedAt: new Date(0),
  durationMs: 3,
};

/** A store that keeps what it was asked to write; `failNext` makes the next write reject. */
class MemoryStore implements JournalStore {
  readonly writes: { kind: 'write' | 'finish'; batch: JournalBatch }[] = [];
  readonly lateFailures: unknown[] = [];
  failNext = false;
  stored = true;

  write(_runId: string, batch: JournalBatch): Promise<void> {
    return this.record('write', batch).then(() => undefined);
  }

  finish(_runId: string, batch: JournalBatch, _finish: FinishRun): Promise<boolean> {
    return this.record('finish', batch).then(() => this.stored);
  }

  lateWriteFailed(_runId: string, error: unknown): void {
    this.lateFailures.push(error);
  }

  /** Progress-write failures, and whether the store says the rows were surely not written. */
  readonly progressFailures: unknown[] = [];
  unstored = true;
  progressWriteFailed(_runId: string, error: unknown): boolean {
    this.progressFailures.push(error);
    return this.unstored;
  }

  private async record(kind: 'write' | 'finish', batch: JournalBatch): Promise<void> {
    await Promise.resolve();
    if (this.failNext) {
      this.failNext = false;
      throw new Error('write failed');
    }
    this.writes.push({ kind, batch });
  }
}

const eventTypes = (batch: JournalBatch) => batch.events.map((event) => event.eventType);
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('RunJournal', () => {
  let store: MemoryStore;
  let journal: RunJournal;
  beforeEach(() => {
    store = new MemoryStore();
    journal = new RunJournal('r-1', store);
  });

  it('writes nothing, not even a round trip, until flushed, then everything pending in order', async () => {
    journal.event('RUN', 'RUN_STARTED');
    journal.modelStep(STEP, { contentSource: 'UNAVAILABLE', reasoningContent: null, assistantText: null });
    journal.event('ROUTING', 'ROUTED', { intent: 'DIAGNOSIS' });
    journal.setIntent('DIAGNOSIS');
    expect(store.writes).toEqual([]);
    await journal.flush();
    expect(store.writes).toHaveLength(1);
    const [{ batch }] = store.writes;
    expect(eventTypes(batch)).toEqual(['RUN_STARTED', 'ROUTED']);
    expect(batch.steps).toHaveLength(1);
    expect(batch.intent).toBe('DIAGNOSIS');
    await journal.flush();
    expect(store.writes).toHaveLength(1);
  });

  it('bounds event details as the timeline always did', async () => {
    journal.event('TOOL', 'TOOL_FINISHED', { error_code: 'x'.repeat(300) });
    await journal.flush();
    expect(store.writes[0].batch.events[0].details?.error_code).toHaveLength(201);
  });

  it('keeps the first budget limit a run hit', async () => {
    journal.budgetExhausted('MODEL_CALLS');
    journal.budgetExhausted('TOOL_CALLS');
    await journal.flush();
    expect(store.writes[0].batch.budgetExhausted).toBe('MODEL_CALLS');
  });

  it('serialises writes: a flush started while another runs writes after it, with what came since', async () => {
    journal.event('AGENT', 'AGENT_STARTED');
    const first = journal.flush();
    journal.event('AGENT', 'MODEL_STEP');
    const second = journal.flush();
    await Promise.all([first, second]);
    expect(store.writes.map((write) => eventTypes(write.batch))).toEqual([['AGENT_STARTED', 'MODEL_STEP']]);
    journal.event('AGENT', 'AGENT_FINISHED');
    await journal.flush();
    expect(store.writes.map((write) => eventTypes(write.batch))).toEqual([
      ['AGENT_STARTED', 'MODEL_STEP'],
      ['AGENT_FINISHED'],
    ]);
  });

  it('drops a batch whose write failed and hands the error to the caller; later writes go on', async () => {
    journal.event('AGENT', 'AGENT_STARTED');
    store.failNext = true;
    await expect(journal.flush()).rejects.toThrow('write failed');
    journal.event('AGENT', 'AGENT_FINISHED');
    await expect(journal.finish(FINISH)).resolves.toBe(true);
    expect(store.writes).toEqual([{ kind: 'finish', batch: expect.objectContaining({}) }]);
    expect(eventTypes(store.writes[0].batch)).toEqual(['AGENT_FINISHED']);
  });

  it.each([
    ['the run was stored', true],
    ['the run had already left RUNNING', false],
  ])('finish writes the rest with the terminal state and reports whether %s', async (_name, stored) => {
    store.stored = stored;
    journal.event('RELEASE', 'RELEASED');
    await expect(journal.finish(FINISH)).resolves.toBe(stored);
    expect(store.writes.map((write) => [write.kind, eventTypes(write.batch)])).toEqual([
      ['finish', ['RELEASED']],
    ]);
  });

  it('refuses a second terminal write', async () => {
    await journal.finish(FINISH);
    await expect(journal.finish(FINISH)).rejects.toThrow('already finished');
  });

  it('writes rows recorded after the terminal write on their own, a step with its event together', async () => {
    await journal.finish(FINISH);
    journal.modelStep(
      { ...STEP, status: 'ERROR', errorCode: 'CANCELLED' },
      { contentSource: 'UNAVAILABLE', reasoningContent: null, assistantText: null },
    );
    journal.event('AGENT', 'MODEL_STEP', { status: 'ERROR' });
    await settle();
    expect(
      store.writes.map((write) => [write.kind, eventTypes(write.batch), write.batch.steps.length]),
    ).toEqual([
      ['finish', [], 0],
      ['write', ['MODEL_STEP'], 1],
    ]);
  });

  it('reports a failed late write to the store, since nobody awaits it', async () => {
    await journal.finish(FINISH);
    store.failNext = true;
    journal.event('TOOL', 'TOOL_FINISHED');
    await settle();
    expect(store.lateFailures).toEqual([new Error('write failed')]);
  });

  it.each([
    ['nothing is pending', false, 5000, false],
    ['the oldest row is younger than the limit', true, 999, false],
    ['the oldest row is exactly at the limit', true, 1000, true],
    ['the oldest row is older than the limit', true, 5000, true],
  ])('flushOlderThan writes only when it pays: %s', async (_name, pending, ageMs, writes) => {
    if (pending) journal.event('TOOL', 'TOOL_STARTED');
    await journal.flushOlderThan(1000, performance.now() + ageMs);
    expect(store.writes).toHaveLength(writes ? 1 : 0);
  });

  const later = () => performance.now() + 5000;

  it('a failed live-progress write ends nothing; rows surely not written go with the next write, in order', async () => {
    journal.event('AGENT', 'AGENT_STARTED');
    journal.setIntent('DIAGNOSIS');
    store.failNext = true;
    await expect(journal.flushOlderThan(1000, later())).resolves.toBeUndefined();
    expect(store.progressFailures).toEqual([new Error('write failed')]);
    journal.event('AGENT', 'MODEL_STEP');
    await expect(journal.finish(FINISH)).resolves.toBe(true);
    expect(store.writes.map((write) => [write.kind, eventTypes(write.batch), write.batch.intent])).toEqual([
      ['finish', ['AGENT_STARTED', 'MODEL_STEP'], 'DIAGNOSIS'],
    ]);
  });

  it('after a failed live-progress write, keeps its rows pending at their age for the next one', async () => {
    journal.event('AGENT', 'AGENT_STARTED');
    store.failNext = true;
    await journal.flushOlderThan(1000, later());
    await journal.flushOlderThan(1000, later());
    expect(store.writes.map((write) => eventTypes(write.batch))).toEqual([['AGENT_STARTED']]);
  });

  it("drops a failed live-progress write's rows when the store cannot tell whether they were written (never twice)", async () => {
    journal.event('AGENT', 'AGENT_STARTED');
    store.failNext = true;
    store.unstored = false;
    await journal.flushOlderThan(1000, later());
    journal.event('AGENT', 'AGENT_FINISHED');
    await journal.finish(FINISH);
    expect(store.writes.map((write) => eventTypes(write.batch))).toEqual([['AGENT_FINISHED']]);
  });
});

describe('RunJournal with metrics', () => {
  const AUDIT = { contentSource: 'UNAVAILABLE' as const, reasoningContent: null, assistantText: null };
  const TOOL = {
    toolCallId: 'call_1',
    toolName: 'query_logs',
    argSummary: null,
    requestBytes: 10,
    rawBytes: 0,
    agentResultBytes: 0,
    truncated: false,
    startedAt: new Date(0),
    durationMs: 250,
  };

  it('counts what it records: model steps, tool calls, the intent, and each phase once at the finish', async () => {
    const calls: unknown[][] = [];
    const metrics = {
      modelCall: (...args: unknown[]) => calls.push(['model', ...args]),
      toolCall: (...args: unknown[]) => calls.push(['tool', ...args]),
      event: (...args: unknown[]) => calls.push(['event', args[0], typeof args[1], args[2]]),
      finish: () => calls.push(['finish']),
    };
    const journal = new RunJournal('r-2', new MemoryStore(), null, metrics as never);
    journal.event('RUN', 'RUN_STARTED');
    journal.modelStep(STEP, AUDIT);
    journal.modelStep(
      { ...STEP, status: 'ERROR', errorCode: 'MODEL_TIMEOUT', inputTokens: 0, outputTokens: 0 },
      AUDIT,
    );
    journal.event('ROUTING', 'MODEL_STEP', { duration_ms: 40 });
    journal.setIntent('DIAGNOSIS');
    journal.toolInvocation({ ...TOOL, status: 'READY', evidenceStatus: 'NO_EVIDENCE', errorCode: null });
    journal.toolInvocation({ ...TOOL, status: 'ERROR', evidenceStatus: 'ERROR', errorCode: 'TOOL_TIMEOUT' });
    journal.event('RELEASE', 'RELEASED');
    expect(journal.intent).toBe('DIAGNOSIS');
    await journal.finish(FINISH);
    expect(calls).toEqual([
      ['model', 'system-chat', null, expect.objectContaining({ inputTokens: 1, outputTokens: 1 }), 3],
      ['model', 'system-chat', 'MODEL_TIMEOUT', expect.objectContaining({ inputTokens: 0 }), 3],
      // RUN and RELEASE are instants: only the phases that take time reach the metrics.
      ['event', 'ROUTING', 'number', 40],
      ['tool', 'query_logs', 'NO_EVIDENCE', 250],
      ['tool', 'query_logs', 'TOOL_TIMEOUT', 250],
      ['finish'],
    ]);
  });
});
