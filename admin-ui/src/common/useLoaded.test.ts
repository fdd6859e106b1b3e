import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useLoaded } from './useLoaded';

/** A promise settled by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('useLoaded', () => {
  it('should answer the loaded data, and load again when a dependency changes', async () => {
    const { result, rerender } = renderHook(({ id }) => useLoaded(() => Promise.resolve(`data of ${id}`), [id]), { initialProps: { id: 'a' } });
    expect(result.current).toEqual({ data: null, error: null });
    await waitFor(() => expect(result.current).toEqual({ data: 'data of a', error: null }));
    rerender({ id: 'b' });
    await waitFor(() => expect(result.current).toEqual({ data: 'data of b', error: null }));
  });

  it('should load nothing while load answers null', () => {
    const { result } = renderHook(() => useLoaded<string>(() => null, []));
    expect(result.current).toEqual({ data: null, error: null });
  });

  it('should keep the last data with the error of a failed load, and clear the error once one succeeds', async () => {
    const loads = [deferred<string>(), deferred<string>(), deferred<string>()];
    const { result, rerender } = renderHook(({ n }) => useLoaded(() => loads[n].promise, [n]), { initialProps: { n: 0 } });
    await act(async () => loads[0].resolve('first'));
    rerender({ n: 1 });
    await act(async () => loads[1].reject(new Error('503 unavailable')));
    expect(result.current).toEqual({ data: 'first', error: '503 unavailable' });
    rerender({ n: 2 });
    await act(async () => loads[2].resolve('third'));
    expect(result.current).toEqual({ data: 'third', error: null });
  });

  it('should drop the answer of a load a newer one replaced', async () => {
    const loads = [deferred<string>(), deferred<string>()];
    const { result, rerender } = renderHook(({ n }) => useLoaded(() => loads[n].promise, [n]), { initialProps: { n: 0 } });
    rerender({ n: 1 });
    await act(async () => loads[1].resolve('newer'));
    await act(async () => loads[0].resolve('older'));
    expect(result.current).toEqual({ data: 'newer', error: null });
  });
});
