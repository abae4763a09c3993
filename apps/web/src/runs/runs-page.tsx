import { useState } from 'preact/hooks';
import { hrefOf } from '../router';
import type { ApiKeys } from '../settings/api-keys';
import { RunTraceView } from './run-trace-view';
import { SessionListView } from './session-list-view';
import { SessionRunsView } from './session-runs-view';

interface RunsPageProps {
  sessionId: string | null;
  runId: string | null;
  reference?: number;
  keys: ApiKeys;
  /** The chat's current session, offered when no session is in the address. */
  chatSessionId: string | null;
}

function SessionPicker({ chatSessionId, apiKey }: { chatSessionId: string | null; apiKey: string }) {
  const [value, setValue] = useState(chatSessionId ?? '');
  return (
    <section aria-labelledby="runs-title">
      <h2 id="runs-title" tabIndex={-1}>
        Runs
      </h2>
      <SessionListView apiKey={apiKey} />
      <SessionListView apiKey={apiKey} scope="alert" />
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const sessionId = value.trim();
          if (sessionId) location.hash = hrefOf({ page: 'runs', sessionId, runId: null });
        }}
      >
        <label for="session-id">Session id</label>
        <input
          id="session-id"
          value={value}
          required
          onInput={(event) => setValue(event.currentTarget.value)}
        />
        <button type="submit">Show runs</button>
      </form>
    </section>
  );
}

/** Trace browsing: pick one of the key's sessions (or enter an id), list its runs, open one run's trace. */
export function RunsPage({ sessionId, runId, reference, keys, chatSessionId }: RunsPageProps) {
  if (!sessionId) return <SessionPicker chatSessionId={chatSessionId} apiKey={keys.apiKey} />;
  if (!runId) return <SessionRunsView sessionId={sessionId} apiKey={keys.apiKey} />;
  return (
    <RunTraceView
      sessionId={sessionId}
      runId={runId}
      reference={reference}
      apiKey={keys.apiKey}
      auditorKey={keys.auditorKey}
    />
  );
}
