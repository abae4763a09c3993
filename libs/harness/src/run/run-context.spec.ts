import { Logger, LoggerService } from '@nestjs/common';
import { RunJournal } from '@app/trace';
import { HarnessRetryPolicies } from '../retry/harness-retry-policies';
import { RunCancelled, RunDeadlineExceeded } from './harness-errors';
import { RunContext } from './run-context';
import { heldPace } from '@test/support/unit-harness';

const limits = {
  maxModelCalls: 5,
  maxToolCalls: 5,
  maxCallsPerTool: 5,
  maxInputTokens: 1000,
  maxOutputTokens: 1000,
  maxTotalTokens: 2000,
};

function start(timeoutMs: number, parentSignal?: AbortSignal, pace?: () => Promise<void>): RunContext {
  return RunContext.start({
    sessionId: 's',
    runId: 'r',
    journal: new RunJournal('r', {
      write: () => Promise.reject(new Error('not written in this spec')),
      finish: () => Promise.reject(new Error('not written in this spec')),
      lateWriteFailed: () => undefined,
      progressWriteFailed: () => false,
    }),
    timeoutMs,
    limits,
    retryPolicies: HarnessRetryPolicies.defaults(),
    parentSignal,
    pace,
  });
}

async function stateOf(promise: Promise<void>): Promise<'waiting' | 'resolved' | 'rejected'> {
  const state = promise.then(
    () => 'resolved' as const,
    () => 'rejected' as const,
  );
  return Promise.race([state, new Promise<'waiting'>((resolve) => setImmediate(() => resolve('waiting')))]);
}

describe('RunContext', () => {
  it('aborts its signal with RunDeadlineExceeded when the deadline passes', async () => {
    const ctx = start(30);
    expect(ctx.deadline - Date.now()).toBeLessThanOrEqual(30);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBeInstanceOf(RunDeadlineExceeded);
    expect(() => ctx.throwIfStopped()).toThrow(RunDeadlineExceeded);
  });

  it('is past its deadline by the clock while a busy event loop has not run the timer yet', () => {
    const ctx = start(5);
    const phase = ctx.withTimeReserve(0);
    const until = Date.now() + 20;
    while (Date.now() < until); // the timer cannot fire while this runs
    expect(ctx.signal.aborted).toBe(false);
    expect(() => ctx.throwIfStopped()).toThrow(RunDeadlineExceeded);
    expect(() => phase.throwIfStopped()).toThrow(RunDeadlineExceeded);
    ctx.close();
    phase.close();
  });

  it('is cancelled when the client signal aborts, including before it started', () => {
    const client = new AbortController();
    const ctx = start(10_000, client.signal);
    expect(() => ctx.throwIfStopped()).not.toThrow();
    client.abort();
    expect(ctx.signal.reason).toBeInstanceOf(RunCancelled);
    ctx.close();
    const early = start(10_000, AbortSignal.abort());
    expect(early.signal.reason).toBeInstanceOf(RunCancelled);
    early.close();
  });

  it('is immutable; withIntent shares signal, deadline and budget', () => {
    const ctx = start(10_000);
    const routed = ctx.withIntent('DIAGNOSIS');
    expect(routed.intent).toBe('DIAGNOSIS');
    expect(ctx.intent).toBeNull();
    expect(routed.signal).toBe(ctx.signal);
    expect(routed.budget).toBe(ctx.budget);
    expect(routed.deadline).toBe(ctx.deadline);
    expect(() => Object.assign(ctx, { runId: 'other' })).toThrow(TypeError);
    ctx.close();
  });

  it('paced() goes on at once without a pace, and waits for the pace when there is one', async () => {
    const unpaced = start(60_000);
    await expect(stateOf(unpaced.paced())).resolves.toBe('resolved');
    unpaced.close();

    const door = heldPace();
    const ctx = start(60_000, undefined, door.pace);
    const call = ctx.paced();
    expect(await stateOf(call)).toBe('waiting');
    door.open();
    await expect(call).resolves.toBeUndefined();
    ctx.close();
  });

  it('every view of the run (withIntent, withTimeReserve) waits for the same pace', async () => {
    const door = heldPace();
    const ctx = start(60_000, undefined, door.pace);
    const phase = ctx.withIntent('DIAGNOSIS').withTimeReserve(1000);
    const call = phase.paced();
    expect(await stateOf(call)).toBe('waiting');
    expect(door.asked).toBe(1);
    door.open();
    await expect(call).resolves.toBeUndefined();
    phase.close();
    ctx.close();
  });

  it('a stopped run does not wait for the pace, and one stopped while waiting throws once it may go', async () => {
    const client = new AbortController();
    const door = heldPace();
    const ctx = start(60_000, client.signal, door.pace);
    const call = ctx.paced();
    client.abort();
    door.open();
    await expect(call).rejects.toBeInstanceOf(RunCancelled);
    await expect(ctx.paced()).rejects.toBeInstanceOf(RunCancelled);
    expect(door.asked).toBe(1);
    ctx.close();
  });

  it('awaitPace() waits for the pace and never throws; a stopped run does not wait', async () => {
    const client = new AbortController();
    const door = heldPace();
    const ctx = start(60_000, client.signal, door.pace);
    const waiting = ctx.awaitPace();
    expect(await stateOf(waiting)).toBe('waiting');
    client.abort();
    door.open();
    await expect(waiting).resolves.toBeUndefined();
    await expect(stateOf(ctx.awaitPace())).resolves.toBe('resolved');
    expect(door.asked).toBe(1);
    ctx.close();
  });

  it('close() stops the deadline timer', async () => {
    const ctx = start(20);
    ctx.close();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(ctx.signal.aborted).toBe(false);
  });

  it('withTimeReserve ends the phase early with RunDeadlineExceeded while the run goes on', async () => {
    const ctx = start(10_000);
    const phase = ctx.withTimeReserve(9_970);
    expect(phase.deadline).toBe(ctx.deadline - 9_970);
    expect(phase.budget).toBe(ctx.budget);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(phase.signal.reason).toBeInstanceOf(RunDeadlineExceeded);
    expect(ctx.signal.aborted).toBe(false);
    expect(ctx.remainingMs()).toBeGreaterThan(9_000);
    phase.close();
    ctx.close();
  });

  it('a phase follows its run: a cancelled run cancels the phase with the same reason', () => {
    const client = new AbortController();
    const ctx = start(10_000, client.signal);
    const phase = ctx.withTimeReserve(1_000);
    client.abort();
    expect(phase.signal.reason).toBeInstanceOf(RunCancelled);
    phase.close();
    ctx.close();
  });

  it('hands out loggers whose lines carry runId and sessionId', () => {
    const lines: unknown[] = [];
    const sink: LoggerService = {
      log: (message: unknown) => lines.push(message),
      warn: (message: unknown) => lines.push(message),
      error: (message: unknown) => lines.push(message),
    };
    Logger.overrideLogger(sink);
    try {
      const ctx = start(10_000);
      ctx.logger('ToolBoundary').warn('tool query_logs failed: Error');
      ctx.close();
    } finally {
      Logger.overrideLogger(false);
    }
    expect(lines).toEqual([{ msg: 'tool query_logs failed: Error', runId: 'r', sessionId: 's' }]);
  });

  it('settles once every tracked call of the run, in any of its views, has ended (failed ones included)', async () => {
    const ctx = start(10_000);
    const phase = ctx.withTimeReserve(1000);
    let endTool!: () => void;
    const tool = new Promise<void>((resolve) => (endTool = resolve));
    void ctx.track(tool);
    phase.track(Promise.reject(new Error('model call failed'))).catch(() => undefined);
    let settled: boolean | undefined;
    const waiting = ctx.settled(5000).then((value) => (settled = value));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBeUndefined();
    endTool();
    await waiting;
    expect(settled).toBe(true);
    phase.close();
    ctx.close();
  });

  it('stops waiting for a call that outlasts the bound', async () => {
    const ctx = start(10_000);
    void ctx.track(new Promise(() => undefined));
    await expect(ctx.settled(20)).resolves.toBe(false);
    ctx.close();
  });
});
