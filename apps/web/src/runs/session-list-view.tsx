import { useState } from 'preact/hooks';
import { apiRequest } from '../api/api-client';
import type { SessionList } from '@app/contracts';
import { paths } from '../api/paths';
import { useResource } from '../api/use-resource';
import { formatTime } from '../format';
import { hrefOf } from '../router';
import { ResourceView, TableScroll } from '../ui/feedback';
import { AlertBadge, AlertLabelList } from './alert-view';

const PAGE_SIZE = 20;

const TEXT = {
  own: {
    title: 'Your sessions',
    table: 'Sessions',
    pages: 'Session pages',
    what: 'your sessions',
    empty: 'This API key has no sessions yet: ask something in Chat first.',
  },
  alert: {
    title: 'Alert investigations',
    table: 'Alert investigation sessions',
    pages: 'Alert investigation pages',
    what: 'the alert investigations',
    empty: 'No alert has started an investigation yet (docs/alerts.md).',
  },
};

/**
 * The sessions this API key created (scope own), or the alert groups' sessions (scope alert, with their
 * badge and labels), last activity first, a page at a time; each opens its runs. The server pages by
 * cursor only (older pages), so the cursors of the pages walked so far are kept here for "Newer".
 */
export function SessionListView({ apiKey, scope = 'own' }: { apiKey: string; scope?: 'own' | 'alert' }) {
  const text = TEXT[scope];
  const titleId = `sessions-title-${scope}`;
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1];
  const [list, reload] = useResource<SessionList>(
    (signal) => apiRequest(paths.sessions(PAGE_SIZE, cursor, scope), { apiKey, signal }),
    [apiKey, cursor, scope],
  );
  return (
    <section aria-labelledby={titleId}>
      <div class="page-head">
        <h3 id={titleId}>{text.title}</h3>
        <p>
          <button type="button" class="secondary" onClick={reload}>
            Refresh
          </button>
        </p>
      </div>
      <ResourceView resource={list} what={text.what}>
        {(data) =>
          data.sessions.length === 0 ? (
            <p class="hint">{text.empty}</p>
          ) : (
            <>
              <TableScroll label={text.table}>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Last question</th>
                      <th scope="col">Runs</th>
                      <th scope="col">Last outcome</th>
                      <th scope="col">Last run</th>
                      <th scope="col">Started</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.sessions.map((session) => (
                      <tr key={session.session_id} data-session-id={session.session_id}>
                        <td>
                          {session.origin === 'ALERT' && <AlertBadge />}
                          <a href={hrefOf({ page: 'runs', sessionId: session.session_id, runId: null })}>
                            {session.last_query ?? session.alert_labels?.alertname ?? session.session_id}
                          </a>
                          {session.alert_labels && <AlertLabelList labels={session.alert_labels} />}
                        </td>
                        <td>{session.run_count}</td>
                        <td>
                          {session.last_outcome ? (
                            <span class={`badge status-${session.last_outcome.toLowerCase()}`}>
                              {session.last_outcome}
                            </span>
                          ) : (
                            '—'
                          )}
                        </td>
                        <td>
                          {session.last_run_at ? (
                            <time dateTime={session.last_run_at}>{formatTime(session.last_run_at)}</time>
                          ) : (
                            '—'
                          )}
                        </td>
                        <td>
                          <time dateTime={session.created_at}>{formatTime(session.created_at)}</time>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
              <nav class="pager" aria-label={text.pages}>
                <button
                  type="button"
                  class="secondary"
                  disabled={cursors.length === 1}
                  onClick={() => setCursors(cursors.slice(0, -1))}
                >
                  Newer
                </button>
                <span>
                  {(cursors.length - 1) * PAGE_SIZE + 1}–
                  {(cursors.length - 1) * PAGE_SIZE + data.sessions.length}
                </span>
                <button
                  type="button"
                  class="secondary"
                  disabled={data.next_cursor === null}
                  onClick={() => data.next_cursor && setCursors([...cursors, data.next_cursor])}
                >
                  Older
                </button>
              </nav>
            </>
          )
        }
      </ResourceView>
    </section>
  );
}
