import { isValidToolCallId } from './tool-call-id';

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
