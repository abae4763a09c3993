import { isValidToolCallId, runUniqueToolCallIds } from './tool-call-id';

describe('isValidToolCallId', () => {
  it.each(['call_1', 'call_abc123', 'fake_tc_1', 'toolu_01A.b:c-d', 'x'.repeat(128)])('accepts %s', (id) => {
    expect(isValidToolCallId(id)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(129)],
    ['space', 'call 1'],
    ['slash', 'call/1'],
    ['key separator tricks', 'call_1#bytes'],
    ['glob', 'call_*'],
    ['non-ascii', 'call_é'],
    ['newline', 'call_1\n'],
    ['undefined', undefined],
    ['number', 42],
  ])('rejects %s', (_name, id) => {
    expect(isValidToolCallId(id)).toBe(false);
  });
});

describe('runUniqueToolCallIds', () => {
  it.each<[string, string[], (string | undefined)[], [number, string, string][]]>([
    ['fresh ids stay as sent', ['call_a'], ['call_b', 'call_c'], []],
    ['an id of an earlier response', ['call_0'], ['call_0'], [[0, 'call_0', 'call_0.2']]],
    ['the next free form', ['call_0', 'call_0.2'], ['call_0'], [[0, 'call_0', 'call_0.3']]],
    [
      'a repeat inside one reply',
      [],
      ['call_0', 'call_0', 'call_0'],
      [
        [1, 'call_0', 'call_0.2'],
        [2, 'call_0', 'call_0.3'],
      ],
    ],
    [
      'per-response numbering across turns',
      ['call_0', 'call_1'],
      ['call_0', 'call_1'],
      [
        [0, 'call_0', 'call_0.2'],
        [1, 'call_1', 'call_1.2'],
      ],
    ],
    [
      'a provider id equal to an earlier rewrite',
      ['call_0', 'call_0.2'],
      ['call_0.2'],
      [[0, 'call_0.2', 'call_0.2.2']],
    ],
    ['malformed ids are left to the boundary', ['call 1'], ['call 1', undefined, ''], []],
  ])('%s', (_name, used, reply, expected) => {
    expect(runUniqueToolCallIds(used, reply)).toEqual(
      expected.map(([index, providerId, id]) => ({ index, providerId, id })),
    );
  });

  it('keeps a rewritten 128-character id valid', () => {
    const long = 'x'.repeat(128);
    const [rewrite] = runUniqueToolCallIds([long], [long]);
    expect(rewrite.id).toHaveLength(128);
    expect(rewrite.id.endsWith('.2')).toBe(true);
    expect(isValidToolCallId(rewrite.id)).toBe(true);
  });
});
