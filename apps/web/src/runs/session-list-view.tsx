import { useState } from 'preact/hooks';
import { apiRequest } from '../api/api-client';
import type { SessionList } from '@app/contracts';
import { paths } from '../api/paths';
import { useResource } from '../api/use-resource';
import { formatTime } from '../format';
import { hrefOf } from '../router';
import { ResourceView, TableScroll } from '../ui/feedback';

const PAGE_SIZE = 20;

/**
 * The sessions this API key created, last activity first, a page at a time; each opens its runs. The
 * server pages by cursor only (older pages), so the cursors of the pages walked so far are kept here
 * for "Newer".
 */
export function SessionListView({ apiKey }: { apiKey: string }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1];
  const [list, reload] = useResource<SessionList>(
    (signal) => apiRequest(paths.sessions(PAGE_SIZE, cursor), { apiKey, signal }),
    [apiKey, cursor],
  );
  return (
    <section aria-labelledby="sessions-title">
      <div class="page-head">
        <h3 id="sessions-title">Your sessions</h3>
        <p>
          <button type="button" class="secondary" onClick={reload}>
            Refresh
          </button>
        </p>
      </div>
      <ResourceView resource={list} what="your sessions">
        {(data) =>
          data.sessions.length === 0 ? (
            <p class="hint">This API key has no sessions yet: ask something in Chat first.</p>
          ) : (
            <>
              <TableScroll label="Sessions">
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
                          <a href={hrefOf({ page: 'runs', sessionId: session.session_id, runId: null })}>
                            {session.last_query ?? session.session_id}
                          </a>
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
              <nav class="pager" aria-label="Session pages">
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
