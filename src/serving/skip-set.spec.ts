import { SkipSet } from './skip-set';

describe(SkipSet.name, () => {
  it('should move its version only when campaigns leave it, and log every change in order', () => {
    const set = new SkipSet();
    set.add('a');
    set.add('b');
    set.add('a');
    expect([set.size, set.version, set.changes]).toEqual([2, 0, ['a', 'b']]);
    set.delete(['a', 'x']);
    expect([set.has('a'), set.has('b'), set.version, set.changes]).toEqual([false, true, 1, ['a', 'b', 'a']]);
    // nothing left: no new version
    set.delete(['x']);
    expect(set.version).toBe(1);
    set.add('a');
    expect([set.version, set.changes, set.generation]).toEqual([1, ['a', 'b', 'a', 'a'], 0]);
  });

  it('should start its change log over once it holds more than twice the set, and at least 4,096 changes', () => {
    const toggle = (set: SkipSet) => (set.has('z') ? set.delete(['z']) : set.add('z'));
    const small = new SkipSet();
    for (let i = 0; i < 100; i++) small.add(`c${i}`);
    let toggles = 0;
    for (; small.generation === 0; toggles++) toggle(small);
    expect(100 + toggles).toBe(4097);
    expect(small.changes).toEqual([]);

    const large = new SkipSet();
    for (let i = 0; i < 5000; i++) large.add(`c${i}`);
    expect(large.generation).toBe(0);
    for (toggles = 0; large.generation === 0; toggles++) toggle(large);
    expect(toggles).toBeGreaterThanOrEqual(5000);
    expect(toggles).toBeLessThanOrEqual(5003);
  });
});
