import { mergeSortedRuns } from './merge-sorted-runs';

describe('mergeSortedRuns', () => {
  it('gives every string of the runs once, in plain string order', () => {
    const all = Array.from({ length: 2_345 }, (_, i) => `${(i * 7919) % 2_345}|k`.padStart(12, String.fromCharCode(48 + (i % 40))));
    const runs: string[][] = [];
    for (let i = 0; i < all.length; i += 500) runs.push(all.slice(i, i + 500).sort());
    expect([...mergeSortedRuns(runs)]).toEqual([...all].sort());
  });

  it('takes empty runs, one run and no runs', () => {
    expect([...mergeSortedRuns([[], ['a', 'c'], [], ['b']])]).toEqual(['a', 'b', 'c']);
    expect([...mergeSortedRuns([['x', 'y']])]).toEqual(['x', 'y']);
    expect([...mergeSortedRuns([])]).toEqual([]);
  });

  it('keeps equal strings of different runs', () => {
    expect([
      ...mergeSortedRuns([
        ['a', 'b'],
        ['a', 'b'],
      ]),
    ]).toEqual(['a', 'a', 'b', 'b']);
  });
});
