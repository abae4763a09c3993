import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiKeys } from './api-keys';

interface KeysDialogProps {
  open: boolean;
  keys: ApiKeys;
  onSave: (keys: ApiKeys) => void;
  onClose: () => void;
}

/** A modal form for the API keys; the browser's <dialog> gives focus trapping and Escape to close. */
export function KeysDialog({ open, keys, onSave, onClose }: KeysDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [draft, setDraft] = useState(keys);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      setDraft(keys);
      element.showModal();
    } else if (!open && element.open) {
      element.close();
    }
  }, [open, keys]);

  return (
    <dialog ref={dialog} class="keys-dialog" aria-labelledby="keys-title" onClose={onClose}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          onSave(draft);
          onClose();
        }}
      >
        <h2 id="keys-title">API keys</h2>
        <p class="hint">
          Keys stay in this browser tab only (session storage) and are sent as the <code>x-api-key</code>{' '}
          header.
        </p>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          required
          value={draft.apiKey}
          aria-describedby="api-key-hint"
          onInput={(event) => setDraft({ ...draft, apiKey: event.currentTarget.value })}
        />
        <p id="api-key-hint" class="hint">
          Needs the <code>chat</code> role for chat and documents, <code>trace_reader</code> for run traces.
        </p>
        <label for="auditor-key">Auditor key (optional)</label>
        <input
          id="auditor-key"
          type="password"
          autocomplete="off"
          value={draft.auditorKey}
          aria-describedby="auditor-key-hint"
          onInput={(event) => setDraft({ ...draft, auditorKey: event.currentTarget.value })}
        />
        <p id="auditor-key-hint" class="hint">
          With a key of the <code>auditor</code> role, run pages show the restricted reasoning tab.
        </p>
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit">Save keys</button>
        </div>
      </form>
    </dialog>
  );
}
