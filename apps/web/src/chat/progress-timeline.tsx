import { formatDuration } from '../format';
import type { ProgressStep } from './chat-turn';
import { STATUS_LABELS } from './labels';

interface ProgressTimelineProps {
  steps: ProgressStep[];
  running: boolean;
}

/**
 * The run's status events as an ordered list. While it runs the list is open and announced politely
 * to screen readers; afterwards it folds away behind a summary so the answer comes first.
 */
export function ProgressTimeline({ steps, running }: ProgressTimelineProps) {
  if (steps.length === 0 && !running) return null;
  return (
    <details class="progress" open={running} key={running ? 'running' : 'ended'}>
      <summary>
        {running ? 'Working…' : `Progress · ${steps.length} ${steps.length === 1 ? 'step' : 'steps'}`}
      </summary>
      <ol class="progress-steps" aria-live="polite" aria-label="Progress">
        {steps.map((step, index) => {
          const current = running && index === steps.length - 1;
          return (
            <li
              key={index}
              class={current ? 'current' : 'passed'}
              data-status={step.code}
              aria-current={current ? 'step' : undefined}
            >
              <span class="step-label">{STATUS_LABELS[step.code] ?? step.code}</span>
              <span class="step-message">{step.message}</span>
              <span class="step-time">+{formatDuration(step.elapsedMs)}</span>
            </li>
          );
        })}
      </ol>
    </details>
  );
}
