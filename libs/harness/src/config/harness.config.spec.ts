import { ConfigValidationError } from '@app/config';
import {
  HarnessRetryPolicies,
  RETRY_MATRIX,
  RETRY_OPERATIONS,
  RetryOperation,
} from '../retry/harness-retry-policies';
import { HarnessEnv, loadHarnessConfig } from './harness.config';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadHarnessConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
}

describe('loadHarnessConfig relations', () => {
  it.each<[string, Record<string, string>, string]>([
    [
      'an evidence TTL without the safety margin over run + review time',
      { HARNESS_EVIDENCE_TTL_SECONDS: '300' },
      'HARNESS_EVIDENCE_TTL_SECONDS must exceed HARNESS_RUN_TIMEOUT_MS + HARNESS_SEMANTIC_TOTAL_TIMEOUT_MS + HARNESS_EVIDENCE_TTL_SAFETY_MARGIN_SECONDS',
    ],
    [
      'a guard time reserve as long as the run',
      { HARNESS_RUN_TIMEOUT_MS: '5000', HARNESS_GUARD_TIME_RESERVE_MS: '5000' },
      'HARNESS_GUARD_TIME_RESERVE_MS must be less than HARNESS_RUN_TIMEOUT_MS',
    ],
    [
      'a role whose output cap exceeds its total',
      { HARNESS_SEMANTIC_MAX_OUTPUT_TOKENS: '5000', HARNESS_SEMANTIC_MAX_TOTAL_TOKENS: '4000' },
      'HARNESS_SEMANTIC_MAX_OUTPUT_TOKENS must not exceed HARNESS_SEMANTIC_MAX_TOTAL_TOKENS',
    ],
  ])('refuses %s, naming the keys', (_name, env, message) => {
    expect(problemsOf(env).join('\n')).toContain(message);
  });

  it('accepts a TTL with the margin and gives every role its own token pool', () => {
    const config = loadHarnessConfig({
      HARNESS_EVIDENCE_TTL_SECONDS: '900',
      HARNESS_EVIDENCE_TTL_SAFETY_MARGIN_SECONDS: '600',
    });
    expect(config.agent.guardTimeReserveMs).toBe(60_000);
    expect(Object.keys(config.roleTokens).sort()).toEqual([
      'evidence-repair',
      'intent-router',
      'knowledge-answer',
      'knowledge-guard',
      'semantic-guard',
      'system-chat',
    ]);
  });
});

describe('retry attempts derive from RETRY_MATRIX', () => {
  const KEYS: Record<RetryOperation, keyof HarnessEnv> = {
    intent_router: 'HARNESS_RETRY_INTENT_ROUTER_MAX_ATTEMPTS',
    diagnosis_agent: 'HARNESS_RETRY_DIAGNOSIS_AGENT_MAX_ATTEMPTS',
    tool_call: 'HARNESS_RETRY_TOOL_CALL_MAX_ATTEMPTS',
    semantic_guard: 'HARNESS_RETRY_SEMANTIC_GUARD_MAX_ATTEMPTS',
    evidence_repair: 'HARNESS_RETRY_EVIDENCE_REPAIR_MAX_ATTEMPTS',
    knowledge_guard: 'HARNESS_RETRY_KNOWLEDGE_GUARD_MAX_ATTEMPTS',
  };

  it.each(RETRY_OPERATIONS)(
    '%s: the default is the matrix maximum, the maximum boots, one more is refused',
    (op) => {
      const max = RETRY_MATRIX[op].maxAttempts;
      const key = KEYS[op];
      expect(new HarnessEnv()[key]).toBe(max);
      expect(problemsOf({ [key]: String(max) })).toEqual([]);
      expect(problemsOf({ [key]: String(max + 1) })).toEqual([`${key} must not be greater than ${max}`]);
      // The policies built from the booted config accept what the environment accepted.
      expect(() =>
        HarnessRetryPolicies.fromConfig(loadHarnessConfig({ [key]: String(max) }).retry),
      ).not.toThrow();
    },
  );
});
