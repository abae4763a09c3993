import { ChatCapacity } from './chat-capacity';

describe('ChatCapacity', () => {
  const signal = () => new AbortController().signal;

  it('admits up to maxInFlight, queues up to maxQueue, refuses beyond', async () => {
    const capacity = new ChatCapacity(2, 1);
    const first = await capacity.acquire(signal());
    const second = await capacity.acquire(signal());
    const queued = capacity.acquire(signal());
    expect(await capacity.acquire(signal())).toBeNull();
    expect(capacity.load).toEqual({ inFlight: 2, queued: 1 });
    first!();
    first!();
    const third = await queued;
    expect(third).toEqual(expect.any(Function));
    expect(capacity.load).toEqual({ inFlight: 2, queued: 0 });
    second!();
    third!();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0 });
  });

  it('drops a waiter whose client leaves', async () => {
    const capacity = new ChatCapacity(1, 5);
    const release = await capacity.acquire(signal());
    const client = new AbortController();
    const waiting = capacity.acquire(client.signal);
    client.abort();
    expect(await waiting).toBeNull();
    expect(capacity.load.queued).toBe(0);
    release!();
    expect(capacity.load.inFlight).toBe(0);
  });
});
