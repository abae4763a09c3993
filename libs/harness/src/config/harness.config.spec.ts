import { ConfigValidationError } from '@app/config';
import { loadHarnessConfig } from './harness.config';

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
