/**
 * The suite's one time scale. jest.config.js sets every test's timeout to 30 s times TEST_TIMEOUT_SCALE
 * (default 1) and hands both to the test files in the environment; every other deadline a test sets (a
 * longer timeout for a slow test, a child process's kill deadline, a wait for a page element or a
 * server's readiness) is derived here from the same scale, so a slower or loaded machine raises them all
 * with one setting and none falls below another. Deadlines only bound a failure: a passing test waits on
 * its condition, not on them. Outside jest (the demo's and benches' use of the test support) the scale is 1.
 */
export function timeoutScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.TEST_TIMEOUT_SCALE;
  if (raw === undefined) return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale < 1) {
    throw new Error(`TEST_TIMEOUT_SCALE must be a number of at least 1, got "${raw}"`);
  }
  return scale;
}

/** A deadline of `ms` on an idle machine, times the scale. */
export function scaled(ms: number, env: NodeJS.ProcessEnv = process.env): number {
  return Math.round(ms * timeoutScale(env));
}

/** Jest's timeout of each test (jest.config.js), for a deadline that must lie beyond it. */
export function testTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const ms = Number(env.TEST_TIMEOUT_MS);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new Error(`TEST_TIMEOUT_MS must be set by jest.config.js, got "${env.TEST_TIMEOUT_MS}"`);
  }
  return ms;
}
