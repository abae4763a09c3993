import { formatDuration } from '../format';
import type { StatusCode } from '@app/contracts';
import type { ProgressStep } from './chat-turn';
import { STATUS_LABELS } from '@app/contracts';

/**
 * Statuses whose message carries more than the label says (the plan, which tools); the others' fixed
 * messages only restate the label, so the row shows the label alone.
 */
const DETAILED: ReadonlySet<StatusCode> = new Set(['DIAGNOSIS_PLAN', 'TOOL_RUNNING', 'TOOL_DONE']);

export function stepDetail(step: ProgressStep): string | null {
  return DETAILED.has(step.code) && step.message.trim() !== '' ? step.message : null;
}

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
          const detail = stepDetail(step);
          return (
            <li
              key={index}
              class={current ? 'current' : 'passed'}
              data-status={step.code}
              aria-current={current ? 'step' : undefined}
            >
              <span class="step-label">{STATUS_LABELS[step.code] ?? step.code}</span>
              {detail !== null && <span class="step-message">{detail}</span>}
              <span class="step-time">+{formatDuration(step.elapsedMs)}</span>
            </li>
          );
        })}
      </ol>
    </details>
  );
}
