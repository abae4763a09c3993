import { hrefOf } from '../router';
import { isTurnOpen, type ChatTurn } from './chat-turn';
import { DiagnosisReportView } from './diagnosis-report-view';
import { FallbackView } from './fallback-view';
import { KnowledgeAnswerView } from './knowledge-answer-view';
import { FAILURE_LABELS } from '@app/contracts';
import { ProgressTimeline } from './progress-timeline';

function Answer({ turn }: { turn: ChatTurn }) {
  const content = turn.content;
  if (!content) return null;
  switch (content.content_type) {
    case 'SYSTEM_ANSWER':
      return <p class="answer-text">{content.payload.answer}</p>;
    case 'KNOWLEDGE_ANSWER':
      return <KnowledgeAnswerView answer={content.payload} />;
    case 'DIAGNOSIS_REPORT':
      return (
        <DiagnosisReportView
          report={content.payload}
          anchorPrefix={turn.id}
          trace={turn.sessionId && turn.runId ? { sessionId: turn.sessionId, runId: turn.runId } : undefined}
        />
      );
    case 'FALLBACK':
      return <FallbackView fallback={content.payload} />;
  }
}

/** The service is busy: the request waits for a free slot and starts on its own. */
export function queuedText(ahead: number): string {
  const waiting = ahead === 0 ? 'next in line' : `${ahead} ${ahead === 1 ? 'request' : 'requests'} ahead`;
  return `Waiting for a free slot (${waiting}); it starts on its own.`;
}

export const turnElementId = (turnId: string) => `turn-${turnId}`;

/** One question with its live progress, then its answer, failure or the reason it did not finish. */
export function TurnView({ turn }: { turn: ChatTurn }) {
  const running = isTurnOpen(turn);
  return (
    <li class="turn" id={turnElementId(turn.id)} data-phase={turn.phase} aria-busy={running}>
      <p class="question">
        <span class="visually-hidden">You asked: </span>
        {turn.query}
      </p>
      <div class="reply">
        {turn.phase === 'SENDING' && <p class="hint">Sending…</p>}
        {turn.phase === 'QUEUED' && (
          <p class="hint queued" role="status">
            {queuedText(turn.queuedAhead ?? 0)}
          </p>
        )}
        <ProgressTimeline steps={turn.progress} running={running} />
        <Answer turn={turn} />
        {turn.failure && (
          <div class="failure" role="alert">
            <strong>{FAILURE_LABELS[turn.failure.code] ?? turn.failure.code}.</strong> {turn.failure.message}
          </div>
        )}
        {turn.phase === 'STOPPED' && (
          <p class="stopped" role="status">
            Stopped. The run was cancelled; nothing was released.
          </p>
        )}
        {turn.problem && (
          <div class="failure" role="alert">
            {turn.problem}
          </div>
        )}
        {turn.sessionId && turn.runId && (
          <p class="run-link">
            <a href={hrefOf({ page: 'runs', sessionId: turn.sessionId, runId: turn.runId })}>
              View the run trace
            </a>
          </p>
        )}
      </div>
    </li>
  );
}
