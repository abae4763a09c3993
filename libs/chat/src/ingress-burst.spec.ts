import { BURST_CONNECTIONS, BURST_SPAN_MS, IngressBurst, MAX_HOLD_MS, QUIET_MS } from './ingress-burst';

/**
 * The event loop as the spec drives it: `turn(accepted, ms)` lets `ms` pass, runs the timers due, then
 * one poll that accepted `accepted` connections, then the callbacks queued for the end of that turn.
 */
function eventLoop() {
  let now = 0;
  let immediates: (() => void)[] = [];
  let timers: { at: number; callback: () => void }[] = [];
  const warnings: string[] = [];
  const burst = new IngressBurst(
    () => now,
    (callback) => immediates.push(callback),
    (ms, callback) => timers.push({ at: now + ms, callback }),
    (message) => warnings.push(message),
  );
  return {
    burst,
    warnings,
    get now() {
      return now;
    },
    accept(connections: number) {
      for (let i = 0; i < connections; i += 1) burst.connectionAccepted();
    },
    async turn(accepted: number, ms = 1) {
      now += ms;
      const due = timers.filter((timer) => timer.at <= now);
      timers = timers.filter((timer) => timer.at > now);
      due.forEach((timer) => timer.callback());
      for (let i = 0; i < accepted; i += 1) burst.connectionAccepted();
      const queued = immediates;
      immediates = [];
      queued.forEach((callback) => callback());
      await Promise.resolve();
    },
  };
}

function tracked(promise: Promise<void>) {
  const state = { settled: false };
  void promise.then(() => (state.settled = true));
  return state;
}

describe('IngressBurst: admitted runs wait while connections are still being accepted', () => {
  it('lets a run go on at once when no connection came since a turn that accepted none', async () => {
    const loop = eventLoop();
    loop.accept(BURST_CONNECTIONS - 1);
    await loop.turn(0);
    await loop.turn(0);
    const run = tracked(loop.burst.settled());
    await Promise.resolve();
    expect(run.settled).toBe(true);
  });

  it('outside a burst, holds a run only until a turn accepts none, without the quiet time', async () => {
    const loop = eventLoop();
    loop.accept(1);
    const run = tracked(loop.burst.settled());
    await loop.turn(0);
    await loop.turn(1);
    expect(run.settled).toBe(false);
    await loop.turn(0);
    expect(run.settled).toBe(true);
  });

  it('holds a run while every turn accepts a connection, though they come slower than a burst', async () => {
    // A slow service: turns of 150 ms accept under 16 connections a second, and the queue still holds more.
    const loop = eventLoop();
    loop.accept(1);
    const run = tracked(loop.burst.settled());
    for (let i = 0; i < 20; i += 1) await loop.turn(1, 150);
    expect(loop.burst.recentBurst).toBe(false);
    expect(run.settled).toBe(false);
    await loop.turn(0, 1);
    expect(run.settled).toBe(true);
  });

  it('lets a run go on at once when the last burst is older than BURST_SPAN_MS', async () => {
    const loop = eventLoop();
    loop.accept(BURST_CONNECTIONS);
    await loop.turn(0, BURST_SPAN_MS);
    await loop.turn(0);
    const run = tracked(loop.burst.settled());
    await Promise.resolve();
    expect(run.settled).toBe(true);
  });

  it('holds a run while every turn accepts a connection, however long the turns', async () => {
    const loop = eventLoop();
    loop.accept(BURST_CONNECTIONS);
    const run = tracked(loop.burst.settled());
    // Long turns (a GC pause, a batch of answers) with a connection waiting each time.
    for (let i = 0; i < 20; i += 1) await loop.turn(1, 150);
    expect(run.settled).toBe(false);
  });

  it('holds a run while connections keep arriving, though the queue empties between them', async () => {
    const loop = eventLoop();
    loop.accept(BURST_CONNECTIONS);
    const run = tracked(loop.burst.settled());
    for (let i = 0; i < 30; i += 1) {
      await loop.turn(1, 1);
      await loop.turn(0, QUIET_MS / 4);
    }
    expect(run.settled).toBe(false);
  });

  it('lets every waiting run go once the queue is empty and no connection has come for QUIET_MS', async () => {
    const loop = eventLoop();
    loop.accept(BURST_CONNECTIONS);
    const first = tracked(loop.burst.settled());
    await loop.turn(1);
    const second = tracked(loop.burst.settled());
    await loop.turn(1);
    await loop.turn(0, QUIET_MS - 10);
    expect([first.settled, second.settled]).toEqual([false, false]);
    await loop.turn(0, 10);
    await loop.turn(0, 1);
    expect([first.settled, second.settled]).toEqual([true, true]);
    expect(loop.warnings).toEqual([]);
  });

  it('lets held runs go in the order they came', async () => {
    const loop = eventLoop();
    loop.accept(BURST_CONNECTIONS);
    const order: number[] = [];
    for (const run of [1, 2, 3]) void loop.burst.settled().then(() => order.push(run));
    await loop.turn(0, QUIET_MS);
    await loop.turn(0, 1);
    await loop.turn(0, 1);
    expect(order).toEqual([1, 2, 3]);
  });

  it('holds a run at most MAX_HOLD_MS while connections never stop', async () => {
    const loop = eventLoop();
    loop.accept(BURST_CONNECTIONS);
    const first = tracked(loop.burst.settled());
    while (loop.now < MAX_HOLD_MS - 50) await loop.turn(1, 50);
    const later = tracked(loop.burst.settled());
    await loop.turn(1, 50);
    await loop.turn(1, 50);
    expect(first.settled).toBe(true);
    expect(later.settled).toBe(false);
    // Named once, not once a turn: the flood goes on, the operator hears it.
    expect(loop.warnings).toEqual([
      `1 chat run(s) went on after waiting ${MAX_HOLD_MS} ms for new connections to be accepted: connections kept arriving faster than the service took them in`,
    ]);
  });

  describe('drained(): a run under way, before its next model or tool call', () => {
    it('goes on at once when no connection came since a turn that accepted none, even during a burst', async () => {
      const loop = eventLoop();
      loop.accept(BURST_CONNECTIONS);
      await loop.turn(0);
      await loop.turn(0);
      expect(loop.burst.recentBurst).toBe(true);
      const call = tracked(loop.burst.drained());
      await Promise.resolve();
      expect(call.settled).toBe(true);
    });

    it('waits while every turn accepts a connection, and goes on at the first turn that accepts none', async () => {
      const loop = eventLoop();
      loop.accept(BURST_CONNECTIONS);
      const call = tracked(loop.burst.drained());
      const starting = tracked(loop.burst.settled());
      for (let i = 0; i < 10; i += 1) await loop.turn(1, 20);
      expect(call.settled).toBe(false);
      await loop.turn(0);
      await loop.turn(0);
      // No quiet time for a run under way; a run about to start still waits it out.
      expect(call.settled).toBe(true);
      expect(starting.settled).toBe(false);
      await loop.turn(0, QUIET_MS);
      await loop.turn(0);
      expect(starting.settled).toBe(true);
    });

    it('after a deep backlog (BURST_CONNECTIONS turns in a row accepted), also waits out QUIET_MS', async () => {
      const loop = eventLoop();
      loop.accept(1);
      const call = tracked(loop.burst.drained());
      for (let i = 0; i < BURST_CONNECTIONS + 2; i += 1) await loop.turn(1, 1);
      await loop.turn(0, 1);
      await loop.turn(0, 1);
      // The last connections taken in are still being answered: the run's step waits.
      expect(call.settled).toBe(false);
      await loop.turn(0, QUIET_MS);
      await loop.turn(0, 1);
      expect(call.settled).toBe(true);
    });

    it('forgets a deep backlog once QUIET_MS has passed without a connection', async () => {
      const loop = eventLoop();
      loop.accept(1);
      for (let i = 0; i < BURST_CONNECTIONS + 2; i += 1) await loop.turn(1, 1);
      for (let i = 0; i < 3; i += 1) await loop.turn(0, QUIET_MS);
      loop.accept(1);
      const call = tracked(loop.burst.drained());
      await loop.turn(0, 1);
      await loop.turn(0, 1);
      expect(call.settled).toBe(true);
    });
  });
});
