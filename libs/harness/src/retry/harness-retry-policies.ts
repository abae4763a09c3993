import type { HarnessConfig } from '../config/harness.config';
import { FailureKind } from '../run/harness-errors';

export const RETRY_OPERATIONS = [
  'intent_router',
  'diagnosis_agent',
  'tool_call',
  'semantic_guard',
  'evidence_repair',
  'knowledge_guard',
] as const;
export type RetryOperation = (typeof RETRY_OPERATIONS)[number];

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly retryableFailures: ReadonlySet<FailureKind>;
}

const TECHNICAL: ReadonlySet<FailureKind> = new Set(['TIMEOUT', 'TRANSPORT', 'INVALID_OUTPUT']);
const NONE: ReadonlySet<FailureKind> = new Set();

/**
 * The fixed retry matrix (docs/architecture.md "Retry matrix"). Attempts are maxima: configuration may lower them, never raise
 * them (HarnessEnv enforces that). NO_EVIDENCE, cancellation, deadline, budget and business rejections
 * are never retryable.
 */
export const RETRY_MATRIX: Readonly<Record<RetryOperation, RetryPolicy>> = Object.freeze({
  intent_router: { maxAttempts: 2, retryableFailures: TECHNICAL },
  diagnosis_agent: { maxAttempts: 1, retryableFailures: NONE },
  tool_call: { maxAttempts: 1, retryableFailures: NONE },
  semantic_guard: { maxAttempts: 2, retryableFailures: TECHNICAL },
  evidence_repair: { maxAttempts: 1, retryableFailures: NONE },
  knowledge_guard: { maxAttempts: 2, retryableFailures: TECHNICAL },
});

export class HarnessRetryPolicies {
  private constructor(private readonly policies: Readonly<Record<RetryOperation, RetryPolicy>>) {
    Object.freeze(this);
  }

  static fromConfig(retry: HarnessConfig['retry']): HarnessRetryPolicies {
    const attempts: Record<RetryOperation, number> = {
      intent_router: retry.intentRouter,
      diagnosis_agent: retry.diagnosisAgent,
      tool_call: retry.toolCall,
      semantic_guard: retry.semanticGuard,
      evidence_repair: retry.evidenceRepair,
      knowledge_guard: retry.knowledgeGuard,
    };
    const policies = Object.fromEntries(
      RETRY_OPERATIONS.map((operation) => {
        const fixed = RETRY_MATRIX[operation];
        if (attempts[operation] < 1 || attempts[operation] > fixed.maxAttempts) {
          throw new Error(`retry attempts for ${operation} must be 1..${fixed.maxAttempts}`);
        }
        return [operation, { maxAttempts: attempts[operation], retryableFailures: fixed.retryableFailures }];
      }),
    ) as Record<RetryOperation, RetryPolicy>;
    return new HarnessRetryPolicies(policies);
  }

  static defaults(): HarnessRetryPolicies {
    return new HarnessRetryPolicies(RETRY_MATRIX);
  }

  get(operation: RetryOperation): RetryPolicy {
    return this.policies[operation];
  }
}
