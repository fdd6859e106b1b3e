import { reserveInRounds } from './reserve-in-rounds';
import type { ReserveResult } from './state/serving-state';

type Candidate = { id: string };
const ranked: Candidate[] = Array.from({ length: 40 }, (_, i) => ({ id: `c${i}` }));

/** The ranked candidates not offered yet, at most `max`, and every offer made (ids per round, and `wanted`). */
function rankedSource() {
  const offers: { ids: string[]; wanted: number }[] = [];
  const candidates = (max: number, offered: ReadonlySet<string> | undefined) => ranked.filter((c) => !offered?.has(c.id)).slice(0, max);
  return { offers, candidates };
}

describe('reserveInRounds', () => {
  it('should serve in one round what the state accepts at once, offering spares', async () => {
    const { offers, candidates } = rankedSource();
    const served = await reserveInRounds<Candidate>({
      limit: 2,
      candidates,
      reserve: async (offered, wanted) => {
        offers.push({ ids: offered.map((c) => c.id), wanted });
        return { served: [0, 1], exhausted: [] };
      },
    });
    expect(served.map((c) => c.id)).toEqual(['c0', 'c1']);
    expect(offers).toEqual([{ ids: ['c0', 'c1', 'c2', 'c3', 'c4'], wanted: 2 }]);
  });

  it('should offer the next best, twice as many each round, when the state refuses all, and stop after four rounds', async () => {
    const { offers, candidates } = rankedSource();
    const served = await reserveInRounds<Candidate>({
      limit: 1,
      candidates,
      reserve: async (offered, wanted) => {
        offers.push({ ids: offered.map((c) => c.id), wanted });
        return { served: [], exhausted: [] };
      },
    });
    expect(served).toEqual([]);
    expect(offers.map((offer) => offer.ids.length)).toEqual([4, 8, 16, 12]);
    expect(offers[1].ids[0]).toBe('c4');
    expect(offers[3].ids).toEqual(ranked.slice(28).map((c) => c.id));
  });

  it('should ask only for what is still wanted in a later round, and keep the order served', async () => {
    const { offers, candidates } = rankedSource();
    const answers: ReserveResult[] = [
      { served: [2], exhausted: [0, 1] },
      { served: [0, 3], exhausted: [] },
    ];
    const served = await reserveInRounds<Candidate>({
      limit: 3,
      candidates,
      reserve: async (offered, wanted) => {
        offers.push({ ids: offered.map((c) => c.id), wanted });
        return answers.shift()!;
      },
    });
    expect(served.map((c) => c.id)).toEqual(['c2', 'c6', 'c9']);
    expect(offers.map((offer) => offer.wanted)).toEqual([3, 2]);
    expect(offers[1].ids).toEqual(['c6', 'c7', 'c8', 'c9', 'c10', 'c11', 'c12', 'c13', 'c14', 'c15']);
  });

  it('should stop when the user reached the hourly cap, or when fewer candidates are left than offered', async () => {
    let calls = 0;
    const capped = await reserveInRounds<Candidate>({
      limit: 3,
      candidates: (max) => ranked.slice(0, max),
      reserve: async () => {
        calls++;
        return { served: [0], exhausted: [], userCapped: true };
      },
    });
    expect(capped.map((c) => c.id)).toEqual(['c0']);
    expect(calls).toBe(1);

    calls = 0;
    const few = await reserveInRounds<Candidate>({
      limit: 3,
      candidates: () => ranked.slice(0, 2),
      reserve: async () => {
        calls++;
        return { served: [], exhausted: [] };
      },
    });
    expect(few).toEqual([]);
    expect(calls).toBe(1);
  });
});
