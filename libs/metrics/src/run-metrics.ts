import { RUN_PHASES, RunPhase } from './metric-catalog';
import type { ModelCallUsage, ServiceMetrics } from './service-metrics';

/**
 * The metrics of one run, fed by its journal: model and tool calls as they are recorded, and each
 * phase's span — from the start of its first call (or its first event) to its last event — observed
 * once when the run finishes. Owned by the run's journal; never shared between runs.
 */
export class RunMetrics {
  private readonly spans = new Map<RunPhase, { start: number; end: number }>();
  private finished = false;

  constructor(private readonly metrics: ServiceMetrics) {}

  modelCall(role: string, errorCode: string | null, usage: ModelCallUsage, durationMs: number): void {
    this.metrics.modelCall(role, errorCode, usage, durationMs);
  }

  toolCall(tool: string, result: string, durationMs: number): void {
    this.metrics.toolCall(tool, result, durationMs);
  }

  /** A timeline event of `phase` at `at` (performance.now()); `durationMs` when it ends a call that long. */
  event(phase: RunPhase, at: number, durationMs?: number): void {
    const start = at - Math.max(0, durationMs ?? 0);
    const span = this.spans.get(phase);
    if (!span) this.spans.set(phase, { start, end: at });
    else {
      span.start = Math.min(span.start, start);
      span.end = Math.max(span.end, at);
    }
  }

  /** Observes every phase the run went through; later calls do nothing. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const phase of RUN_PHASES) {
      const span = this.spans.get(phase);
      if (span) this.metrics.phaseObserved(phase, (span.end - span.start) / 1000);
    }
  }
}
