import { useState } from 'preact/hooks';
import { apiRequest } from '../api/api-client';
import type { SessionRuns } from '@app/contracts';
import { paths } from '../api/paths';
import { useResource } from '../api/use-resource';
import { formatDuration, formatTime } from '../format';
import { hrefOf } from '../router';
import { ResourceView, TableScroll } from '../ui/feedback';
import { SessionAlertPanel } from './alert-view';

const PAGE_SIZE = 20;

/**
 * A session's runs, newest first, a page at a time, each linking to its trace. The server pages by
 * cursor only (older pages), so the cursors of the pages walked so far are kept here for "Newer".
 */
export function SessionRunsView({ sessionId, apiKey }: { sessionId: string; apiKey: string }) {
  const [pages, setPages] = useState<{ sessionId: string; cursors: (string | null)[] }>({
    sessionId,
    cursors: [null],
  });
  // Another session starts again at its newest page.
  const cursors = pages.sessionId === sessionId ? pages.cursors : [null];
  const cursor = cursors[cursors.length - 1];
  const [runs, reload] = useResource<SessionRuns>(
    (signal) => apiRequest(paths.sessionRuns(sessionId, PAGE_SIZE, cursor), { apiKey, signal }),
    [sessionId, apiKey, cursor],
  );
  const walk = (next: (string | null)[]) => setPages({ sessionId, cursors: next });
  return (
    <section aria-labelledby="session-title">
      <div class="page-head">
        <h2 id="session-title" tabIndex={-1}>
          Session <code>{sessionId}</code>
        </h2>
        <p>
          <button type="button" class="secondary" onClick={reload}>
            Refresh
          </button>
        </p>
      </div>
      <ResourceView resource={runs} what="the session’s runs">
        {(data) => (
          <>
            {data.session.alert && <SessionAlertPanel alert={data.session.alert} />}
            {data.runs.length === 0 ? (
              <p class="hint">This session has no runs yet.</p>
            ) : (
              <>
                <TableScroll label="Runs">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Question</th>
                        <th scope="col">Intent</th>
                        <th scope="col">Status</th>
                        <th scope="col">Released</th>
                        <th scope="col">Started</th>
                        <th scope="col">Duration</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.runs.map((run) => (
                        <tr key={run.run_id}>
                          <td>
                            <a href={hrefOf({ page: 'runs', sessionId, runId: run.run_id })}>{run.query}</a>
                          </td>
                          <td>{run.intent ?? '—'}</td>
                          <td>
                            <span class={`badge status-${run.status.toLowerCase()}`}>{run.status}</span>
                          </td>
                          <td>{run.release_outcome ?? '—'}</td>
                          <td>
                            <time dateTime={run.created_at}>{formatTime(run.created_at)}</time>
                          </td>
                          <td>{formatDuration(run.duration_ms)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
                <nav class="pager" aria-label="Run pages">
                  <button
                    type="button"
                    class="secondary"
                    disabled={cursors.length === 1}
                    onClick={() => walk(cursors.slice(0, -1))}
                  >
                    Newer
                  </button>
                  <span>
                    {(cursors.length - 1) * PAGE_SIZE + 1}–
                    {(cursors.length - 1) * PAGE_SIZE + data.runs.length}
                  </span>
                  <button
                    type="button"
                    class="secondary"
                    disabled={data.next_cursor === null}
                    onClick={() => data.next_cursor && walk([...cursors, data.next_cursor])}
                  >
                    Older
                  </button>
                </nav>
              </>
            )}
          </>
        )}
      </ResourceView>
    </section>
  );
}
