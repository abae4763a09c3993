import { scaled, testTimeoutMs, timeoutScale } from './test-timeouts';

describe('test timeouts', () => {
  it.each([
    ['1', 1],
    ['2.5', 2.5],
  ])('reads TEST_TIMEOUT_SCALE=%s as %d', (raw, scale) => {
    expect(timeoutScale({ TEST_TIMEOUT_SCALE: raw })).toBe(scale);
    expect(scaled(20_000, { TEST_TIMEOUT_SCALE: raw })).toBe(20_000 * scale);
  });

  it.each(['0.5', '0', 'fast', ''])('refuses TEST_TIMEOUT_SCALE=%p, naming it', (raw) => {
    expect(() => timeoutScale({ TEST_TIMEOUT_SCALE: raw })).toThrow(/TEST_TIMEOUT_SCALE must be a number/);
  });

  it('is 1 outside jest (the demo and the benches use the test support too)', () => {
    expect(timeoutScale({})).toBe(1);
  });

  it('is set by jest.config.js for every test file, with the per-test timeout it scales', () => {
    expect(testTimeoutMs()).toBe(scaled(30_000));
    expect(() => testTimeoutMs({})).toThrow(/TEST_TIMEOUT_MS must be set by jest.config.js/);
  });
});
