import { useEffect, useRef, useState } from 'preact/hooks';
import { ChatPage } from './chat/chat-page';
import { useChatSession } from './chat/use-chat-session';
import { DocumentsPage } from './documents/documents-page';
import { hrefOf, parseRoute, Route } from './router';
import { RunsPage } from './runs/runs-page';
import { useApiKeys } from './settings/api-keys';
import { KeysDialog } from './settings/keys-dialog';

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

const NAV: { page: Route['page']; label: string; route: Route }[] = [
  { page: 'chat', label: 'Chat', route: { page: 'chat' } },
  { page: 'runs', label: 'Runs', route: { page: 'runs', sessionId: null, runId: null } },
  { page: 'documents', label: 'Documents', route: { page: 'documents' } },
];

/** The shell: navigation, API keys, and the page of the current route. The chat survives page changes. */
export function App() {
  const route = useRoute();
  const [keys, saveKeys] = useApiKeys();
  const [keysOpen, setKeysOpen] = useState(!keys.apiKey);
  const chat = useChatSession();
  const main = useRef<HTMLElement>(null);
  const routeKey = hrefOf(route);

  // Moving to another page moves focus to its heading, as a page load would for a screen reader.
  const firstRender = useRef(true);
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    // A deep link to a reference focuses that reference (or its tool call) instead.
    if (route.page !== 'documents' && route.reference) return;
    main.current?.querySelector<HTMLElement>('h2')?.focus();
  }, [routeKey]);

  return (
    <>
      <header class="app-header">
        <h1>SuperBiz Diagnosis</h1>
        <nav aria-label="Main">
          {NAV.map((item) => (
            <a
              key={item.page}
              href={hrefOf(item.route)}
              aria-current={route.page === item.page ? 'page' : undefined}
            >
              {item.label}
            </a>
          ))}
        </nav>
        <button type="button" class="secondary keys-button" onClick={() => setKeysOpen(true)}>
          {keys.apiKey ? 'API keys' : 'Set API key'}
        </button>
      </header>
      {!keys.apiKey && (
        <p class="notice" role="note">
          Set an API key to use the service.
        </p>
      )}
      <main ref={main} id="main">
        {route.page === 'chat' && (
          <ChatPage
            chat={chat}
            apiKey={keys.apiKey}
            onNeedKeys={() => setKeysOpen(true)}
            target={
              route.runId && route.reference ? { runId: route.runId, reference: route.reference } : null
            }
          />
        )}
        {route.page === 'runs' && (
          <RunsPage
            sessionId={route.sessionId}
            runId={route.runId}
            reference={route.reference}
            keys={keys}
            chatSessionId={chat.sessionId}
          />
        )}
        {route.page === 'documents' && <DocumentsPage apiKey={keys.apiKey} />}
      </main>
      <KeysDialog open={keysOpen} keys={keys} onSave={saveKeys} onClose={() => setKeysOpen(false)} />
    </>
  );
}
