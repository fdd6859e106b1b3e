/**
 * The strings of runs each sorted in plain string order (`Array.prototype.sort`'s default), in that order, one at a
 * time: a heap of the runs' heads, so the merge costs log(runs) comparisons per string.
 */
export function* mergeSortedRuns(runs: readonly (readonly string[])[]): Generator<string> {
  // heap entries: [run index, position in the run], ordered by the string at that position
  const heap: [number, number][] = [];
  const at = ([run, position]: [number, number]) => runs[run][position];
  const less = (a: [number, number], b: [number, number]) => at(a) < at(b);
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j], heap[i]]);
  const down = (start: number) => {
    for (let i = start; ;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && less(heap[left], heap[smallest])) smallest = left;
      if (right < heap.length && less(heap[right], heap[smallest])) smallest = right;
      if (smallest === i) return;
      swap(i, smallest);
      i = smallest;
    }
  };
  for (let run = 0; run < runs.length; run++) if (runs[run].length > 0) heap.push([run, 0]);
  for (let i = Math.floor(heap.length / 2) - 1; i >= 0; i--) down(i);
  while (heap.length > 0) {
    const top = heap[0];
    yield at(top);
    if (top[1] + 1 < runs[top[0]].length) top[1] += 1;
    else {
      const last = heap.pop()!;
      if (heap.length === 0) return;
      heap[0] = last;
    }
    down(0);
  }
}
