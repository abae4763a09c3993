import { HitsReply, recordOfHit } from './redis-throttler-storage';

describe('recordOfHit: one hit of a batched script call, as if it had been its own call', () => {
  it.each<[string, HitsReply, number, { totalHits: number; isBlocked: boolean; timeToBlockExpire: number }]>([
    [
      'first of three counted hits',
      [0, 3, 60_000, 0, 0],
      0,
      { totalHits: 1, isBlocked: false, timeToBlockExpire: 0 },
    ],
    [
      'last of three counted hits',
      [0, 3, 60_000, 0, 0],
      2,
      { totalHits: 3, isBlocked: false, timeToBlockExpire: 0 },
    ],
    [
      'hits continue an earlier count',
      [4, 2, 30_000, 0, 0],
      1,
      { totalHits: 6, isBlocked: false, timeToBlockExpire: 0 },
    ],
    [
      'a hit before the one that passed the limit',
      [3, 3, 60_000, 1, 60_000],
      1,
      { totalHits: 5, isBlocked: false, timeToBlockExpire: 0 },
    ],
    [
      'the hit that passed the limit',
      [3, 3, 60_000, 1, 60_000],
      2,
      { totalHits: 6, isBlocked: true, timeToBlockExpire: 60 },
    ],
    [
      'a hit after the one that passed the limit',
      [3, 3, 60_000, 1, 60_000],
      4,
      { totalHits: 6, isBlocked: true, timeToBlockExpire: 60 },
    ],
    [
      'the first hit of a call that passed the limit at once',
      [5, 1, 60_000, 1, 10_000],
      0,
      { totalHits: 6, isBlocked: true, timeToBlockExpire: 10 },
    ],
    [
      'a hit while an earlier block holds',
      [6, 0, 20_000, 1, 1_500],
      0,
      { totalHits: 6, isBlocked: true, timeToBlockExpire: 2 },
    ],
    [
      'another hit while an earlier block holds',
      [6, 0, 20_000, 1, 1_500],
      3,
      { totalHits: 6, isBlocked: true, timeToBlockExpire: 2 },
    ],
  ])('%s', (_name, reply, index, expected) => {
    expect(recordOfHit(reply, index)).toEqual({ ...expected, timeToExpire: Math.ceil(reply[2] / 1000) });
  });
});
