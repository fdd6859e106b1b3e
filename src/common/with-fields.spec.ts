import { setFlagsFromString } from 'node:v8';
import { withFields } from './with-fields';

/** V8's own test of whether two objects have the same hidden class (compiled with natives syntax allowed). */
function haveSameHiddenClass(a: object, b: object): boolean {
  setFlagsFromString('--allow-natives-syntax');
  try {
    return (new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean)(a, b);
  } finally {
    setFlagsFromString('--no-allow-natives-syntax');
  }
}

describe('withFields', () => {
  const base = { campaignId: 'c1', totalBudgetMicros: 5_000_000, knownSpentMicros: 0 };

  it('should copy the base with the fields set, leaving the base as it was', () => {
    const copy = withFields(base, { knownSpentMicros: 250, userId: 'u1' });

    expect(copy).toEqual({ campaignId: 'c1', totalBudgetMicros: 5_000_000, knownSpentMicros: 250, userId: 'u1' });
    expect(base).toEqual({ campaignId: 'c1', totalBudgetMicros: 5_000_000, knownSpentMicros: 0 });
  });

  it('should give every copy of the same shape the same hidden class (a leading spread gives each its own in Node 20)', () => {
    // a hundred runs of each site: the first few runs, before its inline cache settles, share a class either way
    const copies = Array.from({ length: 100 }, (_, i) => withFields({ ...base }, { now: Date.now() + i }));
    const spread = Array.from({ length: 100 }, (_, i) => ({ ...base, now: Date.now() + i }));

    expect(haveSameHiddenClass(copies[0], copies[99])).toBe(true);
    expect(haveSameHiddenClass(copies[98], copies[99])).toBe(true);
    // The control: if V8 stops doing this, withFields and its lint rule can go (docs/PERFORMANCE.md#the-post-routes-garbage).
    expect(haveSameHiddenClass(spread[98], spread[99])).toBe(false);
  });
});
