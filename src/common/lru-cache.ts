/**
 * A map bounded by entry count that evicts its least recently used entry when full: never cleared whole, so a
 * flood of new keys pushes out only the oldest of its own kind.
 */
export class LruCache<K, V> {
  // A list from the most to the least recently used entry beside the map: a hit relinks two entries, where deleting and
  // re-inserting it in the map (insertion order as recency) left a deleted slot per hit and rebuilt the map's table
  // over and over on the request path (the key and bot-verdict caches are read on every ad request).
  private readonly entries = new Map<K, LruEntry<K, V>>();
  private newest: LruEntry<K, V> | null = null;
  private oldest: LruEntry<K, V> | null = null;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.makeNewest(entry);
    return entry.value;
  }

  /** Reads without refreshing the entry's recency. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  set(key: K, value: V): void {
    if (this.capacity <= 0) return;
    const present = this.entries.get(key);
    if (present !== undefined) {
      present.value = value;
      this.makeNewest(present);
      return;
    }
    const entry: LruEntry<K, V> = { key, value, newer: null, older: null };
    this.entries.set(key, entry);
    this.link(entry);
    while (this.entries.size > this.capacity) this.delete(this.oldest!.key);
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.unlink(entry);
  }

  /** For caches whose every entry may be stale at once (their change notices were lost). */
  clear(): void {
    this.entries.clear();
    this.newest = null;
    this.oldest = null;
  }

  private makeNewest(entry: LruEntry<K, V>): void {
    if (entry === this.newest) return;
    this.unlink(entry);
    this.link(entry);
  }

  private link(entry: LruEntry<K, V>): void {
    entry.older = this.newest;
    entry.newer = null;
    if (this.newest !== null) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  private unlink(entry: LruEntry<K, V>): void {
    if (entry.newer !== null) entry.newer.older = entry.older;
    else this.newest = entry.older;
    if (entry.older !== null) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    entry.newer = null;
    entry.older = null;
  }
}

interface LruEntry<K, V> {
  readonly key: K;
  value: V;
  newer: LruEntry<K, V> | null;
  older: LruEntry<K, V> | null;
}
