import { useEffect, useRef, useState } from 'preact/hooks';
import { hrefOf } from '../router';
import { isTurnOpen } from './chat-turn';
import { isComposerCompact } from './composer-mode';
import type { ChatSession } from './use-chat-session';
import { focusReference } from './reference-list';
import { TurnView, turnElementId } from './turn-view';

interface ChatPageProps {
  chat: ChatSession;
  apiKey: string;
  onNeedKeys: () => void;
  /** A reference to open (from a run trace's "cited as" link): the answer of that run, that reference. */
  target: { runId: string; reference: number } | null;
}

const MAX_QUERY_CHARS = 4000;
const COMPOSER_SETTLE_MS = 400;

/** Ask, watch the run's progress, read the verified answer; follow-ups stay in the same session. */
export function ChatPage({ chat, apiKey, onNeedKeys, target }: ChatPageProps) {
  const [query, setQuery] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  const turnCount = chat.turns.length;
  const newest = chat.turns.at(-1);
  const newestEnded = newest ? !isTurnOpen(newest) : false;
  const [conversationBelowPx, setConversationBelowPx] = useState(0);
  const conversation = useRef<HTMLOListElement>(null);
  const [focused, setFocused] = useState(false);
  const compact = isComposerCompact({
    conversationBelowPx,
    focused,
    hasText: query.length > 0,
    hasTurns: turnCount > 0,
  });

  // Measured once scrolling has settled: the composer never changes size under a pointer that is about
  // to click (a link scrolled to just above it), and a fling through the page changes it once.
  useEffect(() => {
    let settle: ReturnType<typeof setTimeout> | undefined;
    const measure = () => {
      const bottom = conversation.current?.getBoundingClientRect().bottom;
      setConversationBelowPx(bottom === undefined ? 0 : bottom - window.innerHeight);
    };
    const later = () => {
      clearTimeout(settle);
      settle = setTimeout(measure, COMPOSER_SETTLE_MS);
    };
    measure();
    window.addEventListener('scroll', later, { passive: true });
    window.addEventListener('resize', later);
    return () => {
      clearTimeout(settle);
      window.removeEventListener('scroll', later);
      window.removeEventListener('resize', later);
    };
  }, [turnCount, newestEnded]);

  // The newest turn goes to the top of the view when it starts and again when its answer arrives, so
  // the answer starts right under the question; aligning the page's end instead left the answer
  // under the sticky composer.
  useEffect(() => {
    if (newest) document.getElementById(turnElementId(newest.id))?.scrollIntoView({ block: 'start' });
  }, [newest?.id, newestEnded]);

  const targetTurn = target ? chat.turns.find((turn) => turn.runId === target.runId) : undefined;
  useEffect(() => {
    if (target && targetTurn) focusReference(targetTurn.id, target.reference);
  }, [targetTurn?.id, target?.reference]);

  const submit = () => {
    const text = query.trim();
    if (!text || chat.busy) return;
    if (!apiKey) {
      onNeedKeys();
      return;
    }
    setQuery('');
    void chat.send(text, apiKey);
  };

  return (
    <section class="chat-page" aria-labelledby="chat-title">
      <div class="page-head">
        <h2 id="chat-title" tabIndex={-1}>
          Diagnosis chat
        </h2>
        <p class="session">
          {chat.sessionId ? (
            <>
              Session{' '}
              <a href={hrefOf({ page: 'runs', sessionId: chat.sessionId, runId: null })}>
                <code>{chat.sessionId}</code>
              </a>
            </>
          ) : (
            'New session'
          )}
          <button
            type="button"
            class="secondary"
            onClick={() => {
              chat.reset();
              input.current?.focus();
            }}
            disabled={turnCount === 0 && !chat.sessionId}
          >
            New session
          </button>
        </p>
      </div>

      {target && !targetTurn && (
        <p class="notice" role="note">
          That answer is not in this chat any more (it was in an earlier visit or session); its run trace
          keeps what was cited.
        </p>
      )}

      {turnCount === 0 ? (
        <p class="hint empty">
          Describe a fault (for example “订单 order-123 支付超时，帮我排查”), follow it up in the same session
          (“payment-service 饱和了吗？查一下它的指标”) or ask about a runbook. Only reports whose every claim
          is backed by verified evidence are released.
        </p>
      ) : (
        <ol class="turns" aria-label="Conversation" ref={conversation}>
          {chat.turns.map((turn) => (
            <TurnView key={turn.id} turn={turn} />
          ))}
        </ol>
      )}

      <form
        class={compact ? 'composer compact' : 'composer'}
        onFocusIn={() => setFocused(true)}
        onFocusOut={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setFocused(false);
        }}
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <label for="query">Your question</label>
        <textarea
          id="query"
          ref={input}
          rows={compact ? 1 : 3}
          maxLength={MAX_QUERY_CHARS}
          value={query}
          placeholder="What is failing, where, since when?"
          aria-describedby="query-hint"
          onInput={(event) => setQuery(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
              event.preventDefault();
              submit();
            }
          }}
        />
        <p id="query-hint" class="hint">
          Ctrl+Enter sends.
        </p>
        <div class="actions">
          {chat.busy ? (
            <button type="button" class="danger" onClick={chat.stop}>
              Stop
            </button>
          ) : (
            <button type="submit" disabled={!query.trim()}>
              Send
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
