import { dayKeyOf } from '../../common/time-zone';
import { FreshSpend, SpendReseed, SpendSource } from './spend-reseed';

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!check()) throw new Error('condition not met');
};

function sourceOf(spend: Map<string, FreshSpend>, settleMs: number) {
  const reads: { ids: string[]; at: number }[] = [];
  let flushes = 0;
  let failing = false;
  const source: SpendSource = {
    read: (ids) => {
      reads.push({ ids, at: Date.now() });
      if (failing) return Promise.reject(new Error('database down'));
      return Promise.resolve(new Map(ids.filter((id) => spend.has(id)).map((id) => [id, spend.get(id)!])));
    },
    flush: () => {
      flushes++;
      return Promise.resolve();
    },
    settleMs,
    recentLossMs: 10_000,
  };
  return { source, reads, flushes: () => flushes, fail: (on: boolean) => (failing = on) };
}

/** A budget day's key (its start in minutes since the epoch, src/common/time-zone.ts). */
const DAY = dayKeyOf(Date.UTC(2026, 11, 4));

describe(SpendReseed.name, () => {
  const spend = new Map<string, FreshSpend>([
    ['c1', { spentMicros: 5000, daySpentMicros: 2000, spentDay: DAY }],
    ['c2', { spentMicros: 7000, daySpentMicros: 7000, spentDay: DAY }],
  ]);

  it('should read the campaigns wanted in one turn together, once the loss has settled', async () => {
    const lossAt = Date.now();
    const { source, reads } = sourceOf(spend, 60);
    const reseed = new SpendReseed(source, () => Promise.resolve({ at: lossAt }));
    reseed.want('c1');
    reseed.want('c2');
    expect(reseed.seedOf('c1')).toBeUndefined();
    await until(() => reseed.seedOf('c2') !== undefined);
    expect(reads).toHaveLength(1);
    expect(reads[0].ids).toEqual(['c1', 'c2']);
    expect(reads[0].at - lossAt).toBeGreaterThanOrEqual(60);
    expect(reseed.seedOf('c1')).toEqual(spend.get('c1'));
    // used once: a later request must find the counters it seeded
    reseed.used('c1');
    expect(reseed.seedOf('c1')).toBeUndefined();
  });

  it('should read again after a new epoch, and after a failed read', async () => {
    let epochAt = Date.now() - 1000;
    const { source, reads, flushes, fail } = sourceOf(spend, 0);
    const reseed = new SpendReseed(source, () => Promise.resolve({ at: epochAt }));
    reseed.want('c1');
    await until(() => reseed.seedOf('c1') !== undefined);
    // a second loss: the seed of the first is dropped, read again, and this process's impressions are written at once
    epochAt = Date.now();
    reseed.newEpoch();
    expect(flushes()).toBe(1);
    expect(reseed.seedOf('c1')).toBeUndefined();
    fail(true);
    reseed.want('c1');
    await until(() => reads.length === 2);
    expect(reseed.seedOf('c1')).toBeUndefined();
    fail(false);
    await until(() => reseed.seedOf('c1') !== undefined);
    expect(reads).toHaveLength(3);
  });

  it('should tell a recent loss from an old one', () => {
    const reseed = new SpendReseed(sourceOf(spend, 0).source, () => Promise.resolve(null));
    const now = Date.now();
    expect(reseed.lossIsRecent(0, now)).toBe(false);
    expect(reseed.lossIsRecent(now - 9_000, now)).toBe(true);
    expect(reseed.lossIsRecent(now - 10_000, now)).toBe(false);
  });
});
