import { Injectable, Logger } from '@nestjs/common';
import type { ChatContent, FailureCode } from '@app/contracts';
import type { RunStatus } from '@app/trace';

/**
 * A run that reached its terminal state, as a listener (e.g. outbound notifications) hears it: the
 * stored terminal state and exactly what its client was or would have been told. `content` is a released
 * report or answer, or the fixed fallback text, never a draft; `failure` the stable failure code and text.
 */
export interface RunCompleted {
  sessionId: string;
  runId: string;
  origin: 'CHAT' | 'ALERT';
  /** The alert group that started the run; null for a chat-started run. */
  alert: RunAlert | null;
  /** False when the terminal write failed: the state below is INTERNAL_ERROR, what the client heard. */
  stored: boolean;
  status: Exclude<RunStatus, 'RUNNING'>;
  releaseOutcome: Exclude<RunStatus, 'RUNNING'>;
  conclusion: string | null;
  fallbackReason: string | null;
  errorCode: string | null;
  content: ChatContent | null;
  failure: { code: FailureCode; message: string } | null;
}

/** The alert group an alert-started run investigates: untrusted text, to be shown as data. */
export interface RunAlert {
  receiver: string;
  groupKey: string;
  /** The group's common labels. */
  labels: Record<string, string>;
  status: 'firing' | 'resolved';
}

/** Hears every run's completion; registered with RunCompletions (see docs/alerts.md, "Completion seam"). */
export interface RunCompletionListener {
  runCompleted(run: RunCompleted): Promise<void> | void;
}

/**
 * The seam where a run's completion leaves the run: every run (chat- or alert-started) reports here once,
 * after its terminal write. Listeners run after the run has ended and never change it; one that throws
 * or rejects is logged by name and does not stop the others.
 */
@Injectable()
export class RunCompletions {
  private readonly logger = new Logger(RunCompletions.name);
  private readonly listeners: RunCompletionListener[] = [];

  register(listener: RunCompletionListener): void {
    this.listeners.push(listener);
  }

  completed(run: RunCompleted): void {
    for (const listener of this.listeners) {
      const name = listener.constructor.name;
      void Promise.resolve()
        .then(() => listener.runCompleted(run))
        .catch((error: unknown) =>
          this.logger.error(
            `run completion listener ${name} failed for run ${run.runId}: ${error instanceof Error ? error.name : 'unknown error'}`,
          ),
        );
    }
  }
}
