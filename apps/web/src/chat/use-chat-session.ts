import { useCallback, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/api-client';
import { streamChat } from '../api/chat-stream';
import { applyChatEvent, ChatTurn, endTurn, isTurnOpen, startTurn } from './chat-turn';

export interface ChatSession {
  sessionId: string | null;
  turns: ChatTurn[];
  busy: boolean;
  send(query: string, apiKey: string): Promise<void>;
  /** Aborts the request; the service sees the connection close and cancels the run. */
  stop(): void;
  /** Forgets the session: the next question starts a new one without previous context. */
  reset(): void;
}

const LOST_MESSAGE = 'The connection to the service was lost. Open the run trace to see how far it got.';

/** One chat session: its id (from the first metadata event) and its turns, one streaming at a time. */
export function useChatSession(): ChatSession {
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const active = useRef<AbortController | null>(null);
  const nextId = useRef(1);

  const send = useCallback(
    async (query: string, apiKey: string) => {
      if (active.current) return;
      const controller = new AbortController();
      active.current = controller;
      const id = `turn-${nextId.current++}`;
      const update = (change: (turn: ChatTurn) => ChatTurn) =>
        setTurns((current) => current.map((turn) => (turn.id === id ? change(turn) : turn)));
      setTurns((current) => [...current, startTurn(id, query, Date.now())]);
      try {
        await streamChat(
          { query, session_id: sessionId ?? undefined },
          apiKey,
          controller.signal,
          (event) => {
            if (event.event === 'metadata') setSessionId(event.data.session_id);
            update((turn) => applyChatEvent(turn, event, Date.now()));
          },
        );
        update((turn) => endTurn(turn, { kind: 'closed' }));
      } catch (error) {
        update((turn) =>
          endTurn(
            turn,
            controller.signal.aborted
              ? { kind: 'stopped' }
              : { kind: 'error', message: error instanceof ApiError ? error.message : LOST_MESSAGE },
          ),
        );
      } finally {
        if (active.current === controller) active.current = null;
      }
    },
    [sessionId],
  );

  const stop = useCallback(() => active.current?.abort(), []);

  const reset = useCallback(() => {
    active.current?.abort();
    active.current = null;
    setSessionId(null);
    setTurns([]);
  }, []);

  // Only the newest turn can still be streaming.
  const last = turns[turns.length - 1];
  const busy = last !== undefined && isTurnOpen(last);
  return { sessionId, turns, busy, send, stop, reset };
}
