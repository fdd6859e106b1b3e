import { StaleReads } from './stale-reads';

describe('StaleReads', () => {
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('should reload an entry once at a time, and count every stale answer', async () => {
    const reads = new StaleReads(1000, () => 0);
    let release!: () => void;
    const reload = jest.fn(() => new Promise<void>((resolve) => (release = resolve)));
    reads.stale('keys', 'a', reload);
    reads.stale('keys', 'a', reload);
    expect(reload).toHaveBeenCalledTimes(1);
    release();
    await settle();
    reads.stale('keys', 'a', reload);
    expect(reload).toHaveBeenCalledTimes(2);
    expect(reads.answered.get('keys')).toBe(3);
  });

  it("should leave a failing cache's entries unreloaded for a while, then try again", async () => {
    let now = 0;
    const reads = new StaleReads(1000, () => now);
    const failing = jest.fn(() => Promise.reject(new Error('refused')));
    reads.stale('adBlocks', 'b1', failing);
    await settle();
    // another entry of the same cache, and the same one, within the second: no database attempt
    reads.stale('adBlocks', 'b2', failing);
    reads.stale('adBlocks', 'b1', failing);
    expect(failing).toHaveBeenCalledTimes(1);
    // other caches are not held back
    const keys = jest.fn(() => Promise.resolve());
    reads.stale('keys', 'k', keys);
    expect(keys).toHaveBeenCalledTimes(1);
    now = 1000;
    const succeeding = jest.fn(() => Promise.resolve());
    reads.stale('adBlocks', 'b2', succeeding);
    expect(succeeding).toHaveBeenCalledTimes(1);
    await settle();
    reads.stale('adBlocks', 'b1', succeeding);
    expect(succeeding).toHaveBeenCalledTimes(2);
    expect(reads.answered.get('adBlocks')).toBe(5);
  });
});
