import { HarnessRetryPolicies, RETRY_MATRIX } from './harness-retry-policies';

const maxima = {
  intentRouter: 2,
  diagnosisAgent: 1,
  toolCall: 1,
  semanticGuard: 2,
  evidenceRepair: 1,
  knowledgeGuard: 2,
};

describe('HarnessRetryPolicies', () => {
  it('holds the fixed matrix of the seed', () => {
    expect(Object.fromEntries(Object.entries(RETRY_MATRIX).map(([op, p]) => [op, p.maxAttempts]))).toEqual({
      intent_router: 2,
      diagnosis_agent: 1,
      tool_call: 1,
      semantic_guard: 2,
      evidence_repair: 1,
      knowledge_guard: 2,
    });
  });

  it.each(['intent_router', 'semantic_guard', 'knowledge_guard'] as const)(
    '%s retries only technical failures',
    (operation) => {
      const { retryableFailures } = RETRY_MATRIX[operation];
      expect([...retryableFailures].sort()).toEqual(['INVALID_OUTPUT', 'TIMEOUT', 'TRANSPORT']);
    },
  );

  it.each([
    'NO_EVIDENCE',
    'CANCELLED',
    'DEADLINE_EXCEEDED',
    'BUDGET_EXHAUSTED',
    'BUSINESS_REJECTION',
  ] as const)('never retries %s', (kind) => {
    for (const policy of Object.values(RETRY_MATRIX)) expect(policy.retryableFailures.has(kind)).toBe(false);
  });

  it('may be lowered by configuration', () => {
    expect(
      HarnessRetryPolicies.fromConfig({ ...maxima, semanticGuard: 1 }).get('semantic_guard').maxAttempts,
    ).toBe(1);
  });

  it.each([
    [{ ...maxima, intentRouter: 3 }, 'intent_router must be 1..2'],
    [{ ...maxima, toolCall: 2 }, 'tool_call must be 1..1'],
    [{ ...maxima, evidenceRepair: 0 }, 'evidence_repair must be 1..1'],
  ])('refuses to raise or zero the matrix (%p)', (retry, message) => {
    expect(() => HarnessRetryPolicies.fromConfig(retry)).toThrow(message);
  });
});
