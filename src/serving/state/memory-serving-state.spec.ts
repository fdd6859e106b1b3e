import { MemoryServingState, SWEEP_MARKS_PER_CALL } from './memory-serving-state';
import { IMPRESSION_WINDOW_MS, ImpressionCandidate } from './serving-state';
import { describeServingStateContract } from './serving-state.contract';
import { utcDay } from '../../common/day';

describeServingStateContract('memory', () => new MemoryServingState());

describe(MemoryServingState.name, () => {
  const now = Date.UTC(2026, 0, 10, 12);
  const candidate = (n: number): ImpressionCandidate => ({
    campaignId: `c${n}`,
    adId: `ad${n}`,
    priceMicros: 1,
    totalBudgetMicros: 1_000_000_000,
    dailyBudgetMicros: 1_000_000_000,
    knownSpentMicros: 0,
    knownDaySpentMicros: 0,
    day: utcDay(now),
  });
  const ads = Array.from({ length: 10 }, (_, n) => candidate(n));
  const reserve = (state: MemoryServingState, userId: string, at: number) =>
    state.reserveImpressions(
      { userId, adBlockId: 'b1', now: at, limit: 10, invalid: false },
      ads.map((ad) => ({ ...ad, day: utcDay(at) })),
    );

  it('should forget the users of expired impressions a slice per call, never all in one', async () => {
    const state = new MemoryServingState();
    const users = 3 * SWEEP_MARKS_PER_CALL;
    for (let i = 0; i < users; i++) await reserve(state, `u${i}`, now);
    expect(state.userCount).toBe(users);

    // a day later every mark has expired: each call looks at SWEEP_MARKS_PER_CALL marks (a user holds 11 here)
    const later = now + IMPRESSION_WINDOW_MS + 60_000;
    await reserve(state, 'fresh-0', later);
    const afterOne = state.userCount;
    expect(afterOne).toBeGreaterThan(users - SWEEP_MARKS_PER_CALL / 10);
    expect(afterOne).toBeLessThan(users);
    let calls = 1;
    while (state.userCount > calls && calls < users) await reserve(state, `fresh-${calls++}`, later);
    // only the users served a day later are left, and the sweep took about users × 11 / SWEEP_MARKS_PER_CALL calls
    expect(state.userCount).toBe(calls);
    expect(calls).toBeLessThanOrEqual(Math.ceil((users * 12) / SWEEP_MARKS_PER_CALL) + 1);
  });

  it('should look at a user whose marks cannot have expired once, not mark by mark, and forget them once they have', async () => {
    const state = new MemoryServingState();
    const users = 3 * SWEEP_MARKS_PER_CALL;
    for (let i = 0; i < users; i++) await reserve(state, `u${i}`, now);
    const sweep = async (prefix: string, at: number) => {
      let calls = 0;
      do await reserve(state, `${prefix}${calls++}`, at);
      while (state.sweepUnderWay);
      return calls;
    };
    // a minute after they were served, none of their marks has expired: one look per user, not one per mark
    const firstSweep = await sweep('a', now + 61_000);
    expect(firstSweep).toBeLessThanOrEqual(Math.ceil(users / SWEEP_MARKS_PER_CALL) + 1);
    const secondSweep = await sweep('b', now + 122_000);
    expect(secondSweep).toBeLessThanOrEqual(Math.ceil((users + firstSweep) / SWEEP_MARKS_PER_CALL) + 1);
    expect(state.userCount).toBe(users + firstSweep + secondSweep);

    // a day after they were served, their marks have expired: they go (their marks looked at one by one), the users
    // served in the sweeps stay
    const dayLater = await sweep('c', now + IMPRESSION_WINDOW_MS + 1);
    expect(dayLater).toBeGreaterThanOrEqual(Math.floor((users * 11) / SWEEP_MARKS_PER_CALL));
    expect(state.userCount).toBe(firstSweep + secondSweep + dayLater);
  });

  it('should keep nothing of a user a request served nothing to (no empty marks for the sweep to find)', async () => {
    const state = new MemoryServingState();
    const spent = { ...candidate(1), totalBudgetMicros: 0 };
    const spentCapped = { ...candidate(2), totalBudgetMicros: 0, frequencyCap: { impressions: 1, windowMs: 60_000 } };
    const result = await state.reserveImpressions({ userId: 'u1', adBlockId: 'b1', now, limit: 5, invalid: false, userImpressionsPerHour: 3 }, [
      spent,
      spentCapped,
    ]);
    expect(result).toEqual({ served: [], exhausted: [0, 1], heldBack: [], userCapped: false });
    expect(state.userCount).toBe(0);
  });

  it('should keep what still matters through a sweep: an impression within its 24 h takes its one click', async () => {
    const state = new MemoryServingState();
    await reserve(state, 'u1', now);
    const later = now + 61_000;
    await reserve(state, 'u2', later);
    const click = {
      campaignId: 'c3',
      adId: 'ad3',
      userId: 'u1',
      adBlockId: 'b1',
      now: later,
      day: utcDay(now),
      priceMicros: 0,
      totalBudgetMicros: 1_000_000_000,
      dailyBudgetMicros: 1_000_000_000,
      knownSpentMicros: 0,
      knownDaySpentMicros: 0,
      exclusionMs: 0,
    };
    expect((await state.registerClick(click)).kind).toBe('counted');
    expect((await state.registerClick(click)).kind).toBe('duplicate');
  });
});
