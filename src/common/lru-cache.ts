/**
 * A map bounded by entry count that evicts its least recently used entry when full: never cleared whole, so a
 * flood of new keys pushes out only the oldest of its own kind.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Map iteration follows insertion order: re-inserting marks the entry most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Reads without refreshing the entry's recency. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.capacity <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** For caches whose every entry may be stale at once (their change notices were lost). */
  clear(): void {
    this.entries.clear();
  }
}
