import { jsonObjectOf, numbersAsWritten } from './json-fields';

/** Equal, except that a number may have become a string. */
const sameButNumbers = (before: unknown, after: unknown): boolean => {
  if (typeof before === 'number')
    return typeof after === 'number' ? after === before : typeof after === 'string';
  if (Array.isArray(before)) {
    return (
      Array.isArray(after) &&
      after.length === before.length &&
      before.every((item, i) => sameButNumbers(item, after[i]))
    );
  }
  if (typeof before === 'object' && before !== null) {
    const entries = Object.entries(before);
    return (
      typeof after === 'object' &&
      after !== null &&
      Object.keys(after).length === entries.length &&
      entries.every(([key, item]) => sameButNumbers(item, (after as Record<string, unknown>)[key]))
    );
  }
  return after === before;
};

describe('numbersAsWritten', () => {
  it.each([
    ['an exponent', '{"s":5.04e2}', '{"s":"5.04e2"}'],
    ['16 or more digits', '{"id":1234567890123456789}', '{"id":"1234567890123456789"}'],
    ['17 significant digits around a point', '{"v":12345678.123456789}', '{"v":"12345678.123456789"}'],
    ['below 1e-6 (JavaScript prints an exponent)', '{"v":0.0000001}', '{"v":"0.0000001"}'],
    [
      'in an array and a nested object',
      '{"a":[1,-2.5E-3],"b":{"c":1e3}}',
      '{"a":[1,"-2.5E-3"],"b":{"c":"1e3"}}',
    ],
    [
      'numbers JavaScript prints as written stay numbers',
      '{"n":30,"f":1.5,"t":1767225600000}',
      '{"n":30,"f":1.5,"t":1767225600000}',
    ],
    [
      'strings, escaped quotes and backslashes untouched',
      '{"m":"1e5 \\"12345678901234567\\" \\\\","n":1e5}',
      '{"m":"1e5 \\"12345678901234567\\" \\\\","n":"1e5"}',
    ],
    ['a number in a key position stays (invalid JSON stays invalid)', '{1e5:"x"}', '{1e5:"x"}'],
    ['a leading zero stays (invalid JSON stays invalid)', '{"n":01e5}', '{"n":01e5}'],
  ])('%s', (_name, text, expected) => {
    expect(numbersAsWritten(text)).toBe(expected);
  });

  it('keeps JSON valid and every string as it was, over generated objects', () => {
    let seed = 9;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const numbers = ['1e21', '-0.0000001', '12345678901234567890', '5.04E+2', '42', '0.5'];
    const strings = ['"a\\"b"', '"1e5"', '"\\\\"', '"x:1e9,"', '"[1e3]"'];
    for (let round = 0; round < 300; round += 1) {
      const values = Array.from({ length: 1 + next(5) }, (_, i) => {
        const value = next(2) === 0 ? numbers[next(numbers.length)] : strings[next(strings.length)];
        return `"k${i}": ${next(3) === 0 ? `[${value}, ${value}]` : value}`;
      });
      const text = `{${values.join(', ')}}`;
      // Valid JSON stays valid, and only numbers may differ (as strings of what was written).
      expect(sameButNumbers(JSON.parse(text), JSON.parse(numbersAsWritten(text)))).toBe(true);
    }
  });
});

describe('jsonObjectOf', () => {
  it('reads a 19-digit id as the digits written, not as JavaScript rounds it', () => {
    expect(jsonObjectOf('{"request_id":1234567890123456789}')).toEqual({ request_id: '1234567890123456789' });
  });
});
