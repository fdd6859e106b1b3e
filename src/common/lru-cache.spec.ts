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

  it('should store nothing with a capacity of 0', () => {
    const cache = new LruCache<string, number>(0);
    cache.set('a', 1);
    expect(cache.size).toBe(0);
  });
});
