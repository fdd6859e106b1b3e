import { type DependencyList, useEffect, useState } from 'react';

export interface Loaded<T> {
  /** The last result; kept while a newer load runs and when it fails. */
  data: T | null;
  /** The last load's error message, null once a load succeeds. */
  error: string | null;
}

/**
 * Runs `load` after render and again when `deps` change, and answers its last result and error: the
 * fetch-in-useEffect of the panel's pages. `load` answering null loads nothing (no record yet). A result that
 * arrives after the component went away or after a newer load started is dropped.
 */
export function useLoaded<T>(load: () => Promise<T> | null, deps: DependencyList): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ data: null, error: null });
  useEffect(() => {
    const pending = load();
    if (pending === null) return;
    let current = true;
    pending.then(
      (data) => current && setLoaded({ data, error: null }),
      (caught: unknown) => current && setLoaded((previous) => ({ data: previous.data, error: (caught as Error).message })),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller names what `load` depends on
  }, deps);
  return loaded;
}
