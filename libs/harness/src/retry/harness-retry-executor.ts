import { Injectable } from '@nestjs/common';
import { TimelinePhase } from '@app/trace';
import { RunContext } from '../run/run-context';
import { ModelCallFailed, RetryExhausted } from '../run/harness-errors';
import { classifyFailure, failureCode } from './failure-classification';
import { RetryOperation } from './harness-retry-policies';

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
        const hint = error instanceof ModelCallFailed ? error.hint : {};
        const wait = hint.retryAfterMs;
        this.record(ctx, operation, n, failureCode(error), wait);
        // A provider refusal another attempt cannot change (bad key, unknown model, content filter) is
        // final and keeps its own class: it was not retried, so nothing was exhausted.
        if (kind === null || !policy.retryableFailures.has(kind) || hint.transient === false) throw error;
        if (n >= policy.maxAttempts) throw new RetryExhausted(operation, n, kind, error);
        if (wait !== undefined) {
          // The provider said when to come back: wait that long if the deadline allows, else stop here.
          if (wait >= ctx.remainingMs()) throw new RetryExhausted(operation, n, kind, error);
          await waitUnlessStopped(ctx, wait);
        }
      }
    }
  }

  private record(
    ctx: RunContext,
    operation: RetryOperation,
    attempt: number,
    outcome: string,
    retryAfterMs?: number,
  ): void {
    ctx.journal.event(PHASE[operation], 'ATTEMPT', {
      operation,
      attempt,
      outcome,
      ...(retryAfterMs === undefined ? {} : { retry_after_ms: retryAfterMs }),
    });
  }
}

/** Resolves after `ms`, or as soon as the run is stopped (the loop's next check then throws). */
function waitUnlessStopped(ctx: RunContext, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (ctx.signal.aborted) done();
    else ctx.signal.addEventListener('abort', done, { once: true });
  });
}
