import { Admission, ChatCapacity, QueueTicket } from './chat-capacity';

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
    expect(capacity.load).toEqual({ inFlight: 2, queued: 1, keys: 2 });
    first();
    first();
    const third = release(await queued);
    expect(capacity.load).toEqual({ inFlight: 2, queued: 0, keys: 2 });
    second();
    third();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('drops a waiter whose client leaves, and gives its key its queue place back', async () => {
    const capacity = new ChatCapacity(1, 5, 1);
    const running = release(await capacity.acquire('a', signal()));
    const client = new AbortController();
    const waiting = capacity.acquire('a', client.signal);
    expect(await capacity.acquire('a', signal())).toEqual({ granted: false, reason: 'KEY_SHARE_FULL' });
    client.abort();
    expect(await waiting).toEqual({ granted: false, reason: 'AT_CAPACITY' });
    expect(capacity.load.queued).toBe(0);
    const again = capacity.acquire('a', signal());
    expect(capacity.load.queued).toBe(1);
    running();
    release(await again)();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('gives a key its queue place back when its waiter gets a slot', async () => {
    const capacity = new ChatCapacity(1, 5, 1);
    const running = release(await capacity.acquire('a', signal()));
    const waiting = capacity.acquire('a', signal());
    expect(await capacity.acquire('a', signal())).toEqual({ granted: false, reason: 'KEY_SHARE_FULL' });
    running();
    const next = release(await waiting);
    const queuedAgain = capacity.acquire('a', signal());
    expect(capacity.load).toEqual({ inFlight: 1, queued: 1, keys: 1 });
    expect(await capacity.acquire('a', signal())).toEqual({ granted: false, reason: 'KEY_SHARE_FULL' });
    next();
    release(await queuedAgain)();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('lets a single key use every free slot: fairness never leaves capacity idle', async () => {
    const capacity = new ChatCapacity(3, 4, 1);
    const all = await Promise.all([1, 2, 3].map(() => capacity.acquire('only', signal())));
    expect(all.every((admission) => admission.granted)).toBe(true);
    for (const admission of all) release(admission)();
  });

  it('bounds one key to its share of the queue; the others still queue and are served first', async () => {
    const capacity = new ChatCapacity(2, 6, 2);
    const greedy = [await capacity.acquire('greedy', signal()), await capacity.acquire('greedy', signal())];
    const greedyQueued = [capacity.acquire('greedy', signal()), capacity.acquire('greedy', signal())];
    expect(await capacity.acquire('greedy', signal())).toEqual({ granted: false, reason: 'KEY_SHARE_FULL' });
    const other = capacity.acquire('other', signal());
    expect(capacity.load).toEqual({ inFlight: 2, queued: 3, keys: 1 });
    // A freed slot goes to the key with the fewest runs in flight, though greedy asked first.
    release(greedy[0])();
    const otherRelease = release(await other);
    expect(capacity.load).toEqual({ inFlight: 2, queued: 2, keys: 2 });
    otherRelease();
    release(greedy[1])();
    for (const queued of greedyQueued) release(await queued)();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('tells a queued request its place at once, and the place moves up as earlier waiters leave', async () => {
    const capacity = new ChatCapacity(1, 4);
    const running = await capacity.acquire('a', signal());
    const tickets: QueueTicket[] = [];
    const first = new AbortController();
    const firstWaiting = capacity.acquire('b', first.signal, (ticket) => tickets.push(ticket));
    const second = capacity.acquire('c', signal(), (ticket) => tickets.push(ticket));
    expect(tickets.map((ticket) => ticket.ahead())).toEqual([0, 1]);
    first.abort();
    await firstWaiting;
    expect(tickets.map((ticket) => ticket.ahead())).toEqual([-1, 0]);
    release(running)();
    release(await second)();
    expect(tickets[1].ahead()).toBe(-1);
  });

  it('does not call onQueued for a request admitted or refused at once', async () => {
    const capacity = new ChatCapacity(1, 0);
    const onQueued = jest.fn();
    const admitted = await capacity.acquire('a', signal(), onQueued);
    expect(await capacity.acquire('b', signal(), onQueued)).toEqual({
      granted: false,
      reason: 'AT_CAPACITY',
    });
    expect(onQueued).not.toHaveBeenCalled();
    release(admitted)();
  });
});

describe('ChatCapacity background share', () => {
  const share = (maxInFlight: number, maxQueue: number) => ({ maxInFlight, maxQueue });

  it('admits background runs up to their share and queues the rest, bounded', async () => {
    const capacity = new ChatCapacity(3, 5, 5, share(1, 1));
    const first = capacity.reserveBackground()!;
    const releaseFirst = (await first.admitted)!;
    const second = capacity.reserveBackground()!;
    expect(capacity.reserveBackground()).toBeNull();
    expect(capacity.backgroundLoad).toEqual({ inFlight: 1, queued: 1 });
    // The share is full, the interactive slots are not: chats pass at once.
    const chat = release(await capacity.acquire('a', signal()));
    releaseFirst();
    const releaseSecond = (await second.admitted)!;
    expect(capacity.backgroundLoad).toEqual({ inFlight: 1, queued: 0 });
    releaseSecond();
    chat();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('gives a freed slot to a waiting chat before a waiting background run', async () => {
    const capacity = new ChatCapacity(2, 5, 5, share(1, 5));
    const background = (await capacity.reserveBackground()!.admitted)!;
    const chat = release(await capacity.acquire('a', signal()));
    const queuedBackground = capacity.reserveBackground()!;
    const queuedChat = capacity.acquire('b', signal());
    background();
    const second = release(await queuedChat);
    expect(capacity.backgroundLoad).toEqual({ inFlight: 0, queued: 1 });
    chat();
    const admitted = (await queuedBackground.admitted)!;
    expect(capacity.backgroundLoad).toEqual({ inFlight: 1, queued: 0 });
    admitted();
    second();
    expect(capacity.load).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('does not admit a background run while a chat waits, and a cancelled place resolves null', async () => {
    const capacity = new ChatCapacity(1, 5, 5, share(1, 5));
    const chat = release(await capacity.acquire('a', signal()));
    const waitingChat = capacity.acquire('b', signal());
    const ticket = capacity.reserveBackground()!;
    ticket.cancel();
    expect(await ticket.admitted).toBeNull();
    chat();
    release(await waitingChat)();
    expect(capacity.backgroundLoad).toEqual({ inFlight: 0, queued: 0 });
  });

  it('refuses every background run when the share is zero and its queue is zero', () => {
    const capacity = new ChatCapacity(1, 5, 5, share(0, 0));
    expect(capacity.reserveBackground()).toBeNull();
  });
});
