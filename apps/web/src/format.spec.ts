import { formatBytes, formatDuration, prettyJson } from './format';

describe('formatting', () => {
  it.each([
    [null, '—'],
    [0, '0 ms'],
    [850.4, '850 ms'],
    [1000, '1.0 s'],
    [12_345, '12.3 s'],
  ])('duration %p -> %s', (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });

  it.each([
    [undefined, '—'],
    [512, '512 B'],
    [3482, '3.4 KB'],
    [5 * 1024 * 1024, '5.0 MB'],
  ])('bytes %p -> %s', (bytes, expected) => {
    expect(formatBytes(bytes)).toBe(expected);
  });

  it.each([
    ['{"verdict":"SUPPORTED","ids":["a1"]}', '{\n  "verdict": "SUPPORTED",\n  "ids": [\n    "a1"\n  ]\n}'],
    [' [1,2] ', '[\n  1,\n  2\n]'],
    ['{"broken": ', '{"broken": '],
    ['plain reasoning {"x":1}', 'plain reasoning {"x":1}'],
    ['"a string"', '"a string"'],
  ])('prettyJson %p', (text, expected) => {
    expect(prettyJson(text)).toBe(expected);
  });
});
