import { LruCache } from './lru-cache';

describe('LruCache', () => {
  it('should evict only the least recently used entry when full', () => {
    const cache = new LruCache<string, number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1);
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.peek('b')).toBeUndefined();
    expect([cache.peek('a'), cache.peek('c'), cache.peek('d')]).toEqual([1, 3, 4]);
  });

  it('should keep a thousand times its size of new keys from growing it', () => {
    const cache = new LruCache<number, boolean>(10);
    for (let i = 0; i < 10_000; i += 1) cache.set(i, true);
    expect(cache.size).toBe(10);
    expect(cache.peek(9_999)).toBe(true);
    expect(cache.peek(9_989)).toBeUndefined();
  });

  it('should keep the order of use through hits, updates, deletes and clears, and evict in that order', () => {
    const cache = new LruCache<string, number>(4);
    for (const [key, value] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ] as const)
      cache.set(key, value);
    expect(cache.get('b')).toBe(2); // order of use, oldest first: a c d b
    expect(cache.get('b')).toBe(2); // the newest read again changes nothing
    cache.set('a', 10); // an update is a use: c d b a
    cache.delete('d'); // c b a
    expect(cache.peek('c')).toBe(3); // a peek is not a use
    cache.set('e', 5); // c b a e
    cache.set('f', 6); // b a e f: c evicted
    expect(cache.peek('c')).toBeUndefined();
    expect(cache.size).toBe(4);
    cache.set('g', 7); // a e f g
    expect([cache.peek('b'), cache.peek('a'), cache.peek('e'), cache.peek('f'), cache.peek('g')]).toEqual([undefined, 10, 5, 6, 7]);
    cache.delete('g'); // the newest deleted: a e f
    cache.delete('a'); // the oldest deleted: e f
    cache.set('h', 8);
    cache.set('i', 9);
    cache.set('j', 11); // f h i j: e evicted
    expect([cache.peek('e'), cache.peek('f'), cache.peek('j')]).toEqual([undefined, 6, 11]);
    cache.clear();
    expect(cache.size).toBe(0);
    cache.set('k', 12);
    cache.set('l', 13);
    expect([cache.get('k'), cache.size]).toEqual([12, 2]);
  });

  it('should behave as a plain ordered list of entries in any sequence of operations (random sequences against a model)', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    for (let run = 0; run < 300; run++) {
      const capacity = random(5);
      const cache = new LruCache<number, number>(capacity);
      let model: [number, number][] = []; // oldest first
      const use = (key: number) => {
        const entry = model.find(([k]) => k === key);
        if (entry) model = [...model.filter(([k]) => k !== key), entry];
        return entry?.[1];
      };
      for (let step = 0; step < 60; step++) {
        const key = random(7);
        switch (random(5)) {
          case 0:
            expect(cache.get(key)).toBe(use(key));
            break;
          case 1:
            expect(cache.peek(key)).toBe(model.find(([k]) => k === key)?.[1]);
            break;
          case 2:
            cache.delete(key);
            model = model.filter(([k]) => k !== key);
            break;
          case 3:
            if (random(10) === 0) {
              cache.clear();
              model = [];
            }
            break;
          default: {
            const value = random(1000);
            cache.set(key, value);
            if (capacity > 0) {
              model = [...model.filter(([k]) => k !== key), [key, value]];
              if (model.length > capacity) model = model.slice(model.length - capacity);
            }
          }
        }
        expect(cache.size).toBe(model.length);
      }
      // the same entries, evicted in the same order: fill up to the capacity, then add new keys one at a time
      for (let filler = model.length; filler < capacity; filler++) cache.set(2000 + filler, 0);
      for (let i = 0; i < model.length; i++) {
        const survivors = model.slice(i + 1).map(([k]) => k);
        cache.set(1000 + i, 0);
        for (const k of survivors) expect(cache.peek(k)).not.toBeUndefined();
        expect(cache.peek(model[i][0])).toBeUndefined();
      }
    }
  });

  it('should store nothing with a capacity of 0', () => {
    const cache = new LruCache<string, number>(0);
    cache.set('a', 1);
    expect(cache.size).toBe(0);
  });
});
