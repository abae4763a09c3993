import { useCallback, useState } from 'preact/hooks';

/**
 * The keys the UI sends: `apiKey` (chat, documents and trace roles) and an optional `auditorKey` that
 * unlocks the reasoning tab. Kept in sessionStorage, so they are gone when the tab is closed.
 */
export interface ApiKeys {
  apiKey: string;
  auditorKey: string;
}

const STORAGE_KEY = 'superbiz.api-keys';
const EMPTY: ApiKeys = { apiKey: '', auditorKey: '' };

function load(): ApiKeys {
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<ApiKeys> | null;
    return {
      apiKey: typeof stored?.apiKey === 'string' ? stored.apiKey : '',
      auditorKey: typeof stored?.auditorKey === 'string' ? stored.auditorKey : '',
    };
  } catch {
    return EMPTY;
  }
}

export function useApiKeys(): [ApiKeys, (keys: ApiKeys) => void] {
  const [keys, setKeys] = useState<ApiKeys>(load);
  const save = useCallback((next: ApiKeys) => {
    const trimmed = { apiKey: next.apiKey.trim(), auditorKey: next.auditorKey.trim() };
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(trimmed));
    setKeys(trimmed);
  }, []);
  return [keys, save];
}
