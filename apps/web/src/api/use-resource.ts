import { useCallback, useEffect, useState } from 'preact/hooks';

export type Resource<T> =
  { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; data: T };

/**
 * Loads `load()` whenever `deps` change and on `reload()`; a response that arrives after the inputs
 * changed is dropped (its request is aborted), so a slow old answer never replaces a newer one.
 */
export function useResource<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
): [Resource<T>, () => void] {
  const [resource, setResource] = useState<Resource<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setResource({ state: 'loading' });
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
  }, [...deps, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return [resource, reload];
}
