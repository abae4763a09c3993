import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export type Resource<T> =
  { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; data: T };

/**
 * Loads `load()` whenever `deps` change and on `reload()`; a response that arrives after the inputs
 * changed is dropped (its request is aborted), so a slow old answer never replaces a newer one. A
 * reload keeps showing the data it replaces until the new data is there.
 */
export function useResource<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
): [Resource<T>, () => void] {
  const [resource, setResource] = useState<Resource<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  const depsKey = JSON.stringify(deps);
  const loadedKey = useRef<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const reloading = loadedKey.current === depsKey;
    loadedKey.current = depsKey;
    setResource((current) => (reloading && current.state === 'ready' ? current : { state: 'loading' }));
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setResource({ state: 'ready', data });
      },
      (error: unknown) => {
        if (!controller.signal.aborted)
          setResource({
            state: 'error',
            message: error instanceof Error ? error.message : 'The request failed.',
          });
      },
    );
    return () => controller.abort();
    // The caller's deps describe `load`, which is a new closure on every render.
  }, [depsKey, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return [resource, reload];
}
