/**
 * Gathers the keys asked for during one turn of the event loop and loads them with one call at its end: the
 * requests read in one turn (a burst of clicks) share one query instead of one each. Every caller of a turn gets
 * the answer of that turn's load (a key asked twice is loaded once); a failed load fails that turn's callers only.
 */
export class TurnBatch<Key, Value> {
  private waiting = new Map<Key, { resolve: (value: Value | undefined) => void; reject: (error: unknown) => void }[]>();

  constructor(
    /** Loads the values of these keys; a key missing from the answer resolves to undefined. */
    private readonly load: (keys: Key[]) => Promise<Map<Key, Value>>,
  ) {}

  get(key: Key): Promise<Value | undefined> {
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) setImmediate(() => void this.run());
      const callers = this.waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
    });
  }

  private async run(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    try {
      const values = await this.load([...batch.keys()]);
      for (const [key, callers] of batch) for (const caller of callers) caller.resolve(values.get(key));
    } catch (error) {
      for (const callers of batch.values()) for (const caller of callers) caller.reject(error);
    }
  }
}
