import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, apiRequest } from '../api/api-client';
import type {
  DocumentStatus,
  KnowledgeDocumentContent,
  KnowledgeDocumentPage,
  KnowledgeDocumentView,
} from '@app/contracts';
import { paths } from '../api/paths';
import { useResource } from '../api/use-resource';
import { formatBytes, formatTime } from '../format';
import { ResourceView, TableScroll } from '../ui/feedback';

const STATUSES: { status: DocumentStatus; label: string }[] = [
  { status: 'INDEXED', label: 'Indexed' },
  { status: 'PENDING', label: 'Pending' },
  { status: 'FAILED', label: 'Failed' },
];

/** Rows fetched per "Load more": the list never asks for (or renders) the whole knowledge base at once. */
const PAGE_SIZE = 50;

const messageOf = (error: unknown) => (error instanceof ApiError ? error.message : 'The request failed.');

function UploadForm({
  apiKey,
  onUploaded,
}: {
  apiKey: string;
  onUploaded: (document: KnowledgeDocumentView) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const upload = async (form: HTMLFormElement) => {
    setBusy(true);
    setResult(null);
    try {
      const body = new FormData(form);
      // An optional field left empty is absent, not an empty string the service would refuse.
      for (const name of ['category', 'fault_source']) {
        if (!String(body.get(name) ?? '').trim()) body.delete(name);
      }
      const document = await apiRequest<KnowledgeDocumentView>(paths.upload, {
        method: 'POST',
        apiKey,
        body,
      });
      form.reset();
      setResult({ ok: true, message: `Uploaded “${document.title}”: ${document.status}.` });
      onUploaded(document);
    } catch (error) {
      setResult({ ok: false, message: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="upload-form"
      aria-labelledby="upload-title"
      onSubmit={(event) => {
        event.preventDefault();
        void upload(event.currentTarget);
      }}
    >
      <h3 id="upload-title">Upload a runbook</h3>
      <div class="field">
        <label for="doc-file">File (.md, .markdown or .txt)</label>
        <input
          id="doc-file"
          name="file"
          type="file"
          accept=".md,.markdown,.txt,text/markdown,text/plain"
          required
        />
      </div>
      <div class="field">
        <label for="doc-title">Title</label>
        <input id="doc-title" name="title" required maxLength={255} />
      </div>
      <div class="field">
        <label for="doc-category">Category (optional)</label>
        <input id="doc-category" name="category" maxLength={64} />
      </div>
      <div class="field">
        <label for="doc-fault-source">Fault source (optional)</label>
        <input id="doc-fault-source" name="fault_source" maxLength={128} placeholder="e.g. payment-service" />
      </div>
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Uploading…' : 'Upload'}
        </button>
      </div>
      {result && (
        <p class={result.ok ? 'success' : 'failure'} role={result.ok ? 'status' : 'alert'}>
          {result.message}
        </p>
      )}
    </form>
  );
}

function DeleteButton({
  document,
  apiKey,
  onDeleted,
}: {
  document: KnowledgeDocumentView;
  apiKey: string;
  onDeleted: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);
  const remove = async () => {
    try {
      await apiRequest(paths.document(document.document_id), { method: 'DELETE', apiKey });
      onDeleted();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  if (!confirming) {
    return (
      <button
        type="button"
        class="secondary"
        onClick={() => setConfirming(true)}
        aria-label={`Delete ${document.title}`}
      >
        Delete
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={`Confirm deleting ${document.title}`}>
      <button type="button" class="danger" ref={confirmButton} onClick={() => void remove()}>
        Confirm delete
      </button>
      <button type="button" class="secondary" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {error && (
        <span class="failure" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

/** An opened document: the chunks the knowledge base searches, each under its heading path. */
function DocumentContent({ document, apiKey }: { document: KnowledgeDocumentView; apiKey: string }) {
  const [content] = useResource<KnowledgeDocumentContent>(
    (signal) => apiRequest(paths.documentChunks(document.document_id), { apiKey, signal }),
    [document.document_id, apiKey],
  );
  return (
    <ResourceView resource={content} what={`“${document.title}”`}>
      {(data) =>
        data.chunks.length === 0 ? (
          <p class="hint">This document has no searchable chunks.</p>
        ) : (
          <ol class="document-chunks" aria-label={`Chunks of ${document.title}`}>
            {data.chunks.map((chunk) => (
              <li key={chunk.chunk_index}>
                <p class="breadcrumb">{chunk.breadcrumb}</p>
                <pre class="chunk-text">{chunk.content}</pre>
              </li>
            ))}
          </ol>
        )
      }
    </ResourceView>
  );
}

interface LaterPages {
  documents: KnowledgeDocumentView[];
  nextCursor: string | null;
}

/**
 * The first page of a status's documents, and the pages "Load more" appended to it. A new first page
 * (another status, a reload) drops the appended ones; a page that arrives after that is discarded.
 */
function useDocumentPages(apiKey: string, status: DocumentStatus) {
  const [first, reload] = useResource<KnowledgeDocumentPage>(
    (signal) => apiRequest(paths.documentsByStatus(status, PAGE_SIZE, null), { apiKey, signal }),
    [status, apiKey],
  );
  const [later, setLater] = useState<LaterPages | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<string | null>(null);
  const generation = useRef(0);
  useEffect(() => {
    generation.current += 1;
    setLater(null);
    setMoreError(null);
    setLoadingMore(false);
  }, [first]);
  const nextCursor = later ? later.nextCursor : first.state === 'ready' ? first.data.next_cursor : null;
  const loadMore = async () => {
    if (!nextCursor) return;
    const started = generation.current;
    setLoadingMore(true);
    setMoreError(null);
    try {
      const page = await apiRequest<KnowledgeDocumentPage>(
        paths.documentsByStatus(status, PAGE_SIZE, nextCursor),
        { apiKey },
      );
      if (generation.current !== started) return;
      setLater((current) => ({
        documents: [...(current?.documents ?? []), ...page.documents],
        nextCursor: page.next_cursor,
      }));
    } catch (error) {
      if (generation.current === started) setMoreError(messageOf(error));
    } finally {
      if (generation.current === started) setLoadingMore(false);
    }
  };
  return { first, later, nextCursor, loadMore, loadingMore, moreError, reload };
}

/** The knowledge base the agent searches: upload runbooks, list them by indexing status, delete them. */
export function DocumentsPage({ apiKey }: { apiKey: string }) {
  const [status, setStatus] = useState<DocumentStatus>('INDEXED');
  const [openId, setOpenId] = useState<string | null>(null);
  const { first, later, nextCursor, loadMore, loadingMore, moreError, reload } = useDocumentPages(
    apiKey,
    status,
  );
  return (
    <section aria-labelledby="documents-title">
      <h2 id="documents-title" tabIndex={-1}>
        Knowledge documents
      </h2>
      <UploadForm
        apiKey={apiKey}
        onUploaded={(document) => {
          if (document.status === status) reload();
          else setStatus(document.status);
        }}
      />
      <fieldset class="status-filter">
        <legend>Show documents that are</legend>
        {STATUSES.map((option) => (
          <label key={option.status}>
            <input
              type="radio"
              name="document-status"
              value={option.status}
              checked={status === option.status}
              onChange={() => setStatus(option.status)}
            />{' '}
            {option.label}
          </label>
        ))}
      </fieldset>
      <ResourceView resource={first} what="documents">
        {(page) => {
          const list = [...page.documents, ...(later?.documents ?? [])];
          return list.length === 0 ? (
            <p class="hint">No {status.toLowerCase()} documents.</p>
          ) : (
            <>
              <TableScroll label="Documents">
                <table class="documents">
                  <thead>
                    <tr>
                      <th scope="col">Title</th>
                      <th scope="col">Fault source</th>
                      <th scope="col">Category</th>
                      <th scope="col">File</th>
                      <th scope="col">Chunks</th>
                      <th scope="col">Updated</th>
                      <th scope="col">
                        <span class="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((document) => [
                      <tr key={document.document_id} data-document-id={document.document_id}>
                        <td>
                          <button
                            type="button"
                            class="link"
                            aria-expanded={openId === document.document_id}
                            aria-controls={`document-${document.document_id}`}
                            onClick={() =>
                              setOpenId(openId === document.document_id ? null : document.document_id)
                            }
                          >
                            {document.title}
                          </button>
                        </td>
                        <td>{document.fault_source ?? '—'}</td>
                        <td>{document.category ?? '—'}</td>
                        <td>
                          {document.file_name} · {formatBytes(document.size_bytes)}
                        </td>
                        <td>{document.chunk_count}</td>
                        <td>
                          <time dateTime={document.updated_at}>{formatTime(document.updated_at)}</time>
                        </td>
                        <td>
                          <DeleteButton document={document} apiKey={apiKey} onDeleted={reload} />
                        </td>
                      </tr>,
                      openId === document.document_id && (
                        <tr
                          key={`${document.document_id}-content`}
                          id={`document-${document.document_id}`}
                          class="document-content"
                        >
                          <td colSpan={7}>
                            <DocumentContent document={document} apiKey={apiKey} />
                          </td>
                        </tr>
                      ),
                    ])}
                  </tbody>
                </table>
              </TableScroll>
              <nav class="pager" aria-label="More documents">
                <span>
                  {list.length} {status.toLowerCase()} document{list.length === 1 ? '' : 's'}
                  {nextCursor ? ' shown; older ones not loaded yet' : ''}
                </span>
                {nextCursor && (
                  <button
                    type="button"
                    class="secondary"
                    disabled={loadingMore}
                    onClick={() => void loadMore()}
                  >
                    {loadingMore ? 'Loading…' : 'Load more'}
                  </button>
                )}
                {moreError && (
                  <span class="failure" role="alert">
                    {moreError}
                  </span>
                )}
              </nav>
            </>
          );
        }}
      </ResourceView>
    </section>
  );
}
