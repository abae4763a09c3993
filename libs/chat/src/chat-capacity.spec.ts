import { Admission, ChatCapacity } from './chat-capacity';

const signal = () => new AbortController().signal;
const release = (admission: Admission) => {
  if (!admission.granted) throw new Error(`expected a slot, got ${admission.reason}`);
  return admission.release;
};

describe('ChatCapacity', () => {
  it('admits up to maxInFlight, queues up to maxQueue, refuses beyond', async () => {
    const capacity = new ChatCapacity(2, 1);
    const first = release(await capacity.acquire('a', signal()));
    const second = release(await capacity.acquire('b', signal()));
    const queued = capacity.acquire('c', signal());
    expect(await capacity.acquire('d', signal())).toEqual({ granted: false, reason: 'AT_CAPACITY' });
    expect(capacity.load).toEqual({ inFlight: 2, queued: 1, keys: 3 });
    first();
    first();
    const third = release(await queued);
    expect(capacity.load).toEqual({ inFlight: 2, queued: 0, keys: 2 });
    second();
    third();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('drops a waiter whose client leaves, and gives its key its place back', async () => {
    const capacity = new ChatCapacity(1, 5, 2);
    const running = release(await capacity.acquire('a', signal()));
    const client = new AbortController();
    const waiting = capacity.acquire('a', client.signal);
    client.abort();
    expect(await waiting).toEqual({ granted: false, reason: 'AT_CAPACITY' });
    expect(capacity.load.queued).toBe(0);
    // The key's share is one again: it may queue once more.
    const again = capacity.acquire('a', signal());
    expect(capacity.load.queued).toBe(1);
    running();
    release(await again)();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('bounds one key to its share of running and queued places: other keys still get in', async () => {
    const capacity = new ChatCapacity(4, 8, 3);
    const greedy = [
      await capacity.acquire('greedy', signal()),
      await capacity.acquire('greedy', signal()),
      await capacity.acquire('greedy', signal()),
    ];
    expect(greedy.every((admission) => admission.granted)).toBe(true);
    expect(await capacity.acquire('greedy', signal())).toEqual({ granted: false, reason: 'KEY_SHARE_FULL' });
    const other = release(await capacity.acquire('other', signal()));
    // Running and queued places count together.
    const queuedOther = capacity.acquire('other', signal());
    const queuedOther2 = capacity.acquire('other', signal());
    expect(await capacity.acquire('other', signal())).toEqual({ granted: false, reason: 'KEY_SHARE_FULL' });
    expect(capacity.load).toEqual({ inFlight: 4, queued: 2, keys: 2 });
    // A place given back is the key's again.
    release(greedy[0])();
    release(await queuedOther)();
    const greedyAgain = capacity.acquire('greedy', signal());
    expect(capacity.load).toEqual({ inFlight: 4, queued: 1, keys: 2 });
    other();
    release(await greedyAgain)();
    release(await queuedOther2)();
    release(greedy[1])();
    release(greedy[2])();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });
});
