/** A test run's budget: room for every scripted turn, so only a test's own limits ever stop a run. */
export const TEST_RUN_LIMITS = {
  maxModelCalls: 10,
  maxToolCalls: 10,
  maxCallsPerTool: 10,
  maxInputTokens: 1_000_000,
  maxOutputTokens: 1_000_000,
  maxTotalTokens: 2_000_000,
};
