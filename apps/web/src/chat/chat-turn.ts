import type { ChatContent, ChatEvent, DoneOutcome, FailureCode, StatusCode } from '@app/contracts';
import { revealHiddenIn } from '../visible-text';

/**
 * SENDING until the stream opens, QUEUED while the service holds it for a free slot, STREAMING until
 * `done`; then COMPLETE. STOPPED when the user
 * aborted it, ERROR when the request was refused or the stream broke off before `done`.
 */
export type TurnPhase = 'SENDING' | 'QUEUED' | 'STREAMING' | 'COMPLETE' | 'STOPPED' | 'ERROR';

export interface ProgressStep {
  code: StatusCode;
  message: string;
  /** Milliseconds since the question was sent. */
  elapsedMs: number;
}

/** One question and everything the service answered to it, as the chat page shows it. */
export interface ChatTurn {
  id: string;
  query: string;
  startedAt: number;
  sessionId: string | null;
  runId: string | null;
  /** While QUEUED: requests that arrived earlier and still wait. */
  queuedAhead: number | null;
  progress: ProgressStep[];
  content: ChatContent | null;
  failure: { code: FailureCode; message: string } | null;
  outcome: DoneOutcome | null;
  phase: TurnPhase;
  /** Why the request itself did not complete (HTTP error, network, broken stream). */
  problem: string | null;
}

export function startTurn(id: string, query: string, now: number): ChatTurn {
  return {
    id,
    query,
    startedAt: now,
    sessionId: null,
    runId: null,
    queuedAhead: null,
    progress: [],
    content: null,
    failure: null,
    outcome: null,
    phase: 'SENDING',
    problem: null,
  };
}

export function isTurnOpen(turn: ChatTurn): boolean {
  return turn.phase === 'SENDING' || turn.phase === 'QUEUED' || turn.phase === 'STREAMING';
}

/** Folds one stream event into the turn; events after the turn has ended change nothing. */
export function applyChatEvent(turn: ChatTurn, event: ChatEvent, now: number): ChatTurn {
  if (!isTurnOpen(turn)) return turn;
  switch (event.event) {
    case 'queued':
      return { ...turn, phase: 'QUEUED', queuedAhead: event.data.ahead };
    case 'metadata':
      return {
        ...turn,
        phase: 'STREAMING',
        queuedAhead: null,
        sessionId: event.data.session_id,
        runId: event.data.run_id,
      };
    case 'status':
      return {
        ...turn,
        phase: 'STREAMING',
        progress: [
          ...turn.progress,
          { code: event.data.code, message: event.data.message, elapsedMs: now - turn.startedAt },
        ],
      };
    case 'content':
      // Bidi controls and zero-width characters are shown, never allowed to reorder or hide text.
      return { ...turn, content: revealHiddenIn(event.data) };
    case 'failure':
      return { ...turn, failure: event.data };
    case 'done':
      return { ...turn, phase: 'COMPLETE', outcome: event.data.outcome };
  }
}

export type TurnEnding = { kind: 'closed' } | { kind: 'stopped' } | { kind: 'error'; message: string };

export const STREAM_CUT_MESSAGE =
  'The connection closed before the run finished. Open its trace to see how far it got.';

/** The request is over: a stream that closed without `done` is an error, not a silent success. */
export function endTurn(turn: ChatTurn, ending: TurnEnding): ChatTurn {
  if (!isTurnOpen(turn)) return turn;
  switch (ending.kind) {
    case 'stopped':
      return { ...turn, phase: 'STOPPED' };
    case 'error':
      return { ...turn, phase: 'ERROR', problem: ending.message };
    case 'closed':
      return { ...turn, phase: 'ERROR', problem: STREAM_CUT_MESSAGE };
  }
}
