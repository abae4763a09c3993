import { Injectable } from '@nestjs/common';
import { TimelinePhase } from '@app/trace';
import { RunContext } from '../run/run-context';
import { FailureKind } from '../run/harness-errors';
import { classifyFailure, failureCode } from './failure-classification';
import { RetryOperation } from './harness-retry-policies';

/** All attempts failed; `lastFailure` says how the last one did. */
export class RetryExhausted extends Error {
  constructor(
    readonly operation: RetryOperation,
    readonly attempts: number,
    readonly lastFailure: FailureKind,
    readonly lastError: unknown,
  ) {
    super(`${operation} failed after ${attempts} attempt(s): ${lastFailure}`);
    this.name = 'RetryExhausted';
  }
}

const PHASE: Record<RetryOperation, TimelinePhase> = {
  intent_router: 'ROUTING',
  diagnosis_agent: 'AGENT',
  tool_call: 'TOOL',
  semantic_guard: 'SEMANTIC',
  evidence_repair: 'EVIDENCE',
  knowledge_guard: 'SEMANTIC',
};

/**
 * Runs the same operation again under the run's retry policy. The only retry loop in the service:
 * SDK, HTTP and driver retries are all off. Every attempt is a timeline event.
 */
@Injectable()
export class HarnessRetryExecutor {
  async execute<T>(
    ctx: RunContext,
    operation: RetryOperation,
    attempt: (n: number) => Promise<T>,
  ): Promise<T> {
    const policy = ctx.retryPolicies.get(operation);
    for (let n = 1; ; n += 1) {
      ctx.throwIfStopped();
      try {
        const result = await attempt(n);
        this.record(ctx, operation, n, 'OK');
        return result;
      } catch (error) {
        const kind = classifyFailure(error);
        this.record(ctx, operation, n, failureCode(error));
        if (kind === null || !policy.retryableFailures.has(kind)) throw error;
        if (n >= policy.maxAttempts) throw new RetryExhausted(operation, n, kind, error);
      }
    }
  }

  private record(ctx: RunContext, operation: RetryOperation, attempt: number, outcome: string): void {
    ctx.journal.event(PHASE[operation], 'ATTEMPT', { operation, attempt, outcome });
  }
}
