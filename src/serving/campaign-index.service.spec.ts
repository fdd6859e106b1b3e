import type { CampaignStore } from '../campaigns/campaign-store';
import type { ChangeBus } from '../common/change-bus';
import type { Clock } from '../common/clock';
import { CampaignIndexService } from './campaign-index.service';
import type { MatchContext } from './campaign-matcher';
import { MatchCache } from './match-cache';
import type { ServingConfig } from './serving.config';

const NOW = Date.UTC(2026, 0, 10, 12);
const CONTEXT: MatchContext = {
  now: NOW,
  country: null,
  language: null,
  platform: null,
  premium: false,
  highValue: false,
  linkedWallet: false,
  linkedChainWallet: false,
  walletHasBalance: false,
};

async function emptyIndex(): Promise<CampaignIndexService> {
  const store = { servable: async () => [], servableCountersPage: async () => [], findByIds: async () => [], findById: async () => null };
  const index = new CampaignIndexService(
    store as unknown as CampaignStore,
    { indexRefreshMs: 10_000 } as ServingConfig,
    { now: () => NOW } as Clock,
    { on: () => undefined } as unknown as ChangeBus,
  );
  await index.refresh();
  return index;
}

const sorted = (set: { values(): IterableIterator<string> } | undefined) => (set === undefined ? [] : [...set.values()].sort());

describe(CampaignIndexService.name, () => {
  // The match cache keeps its answers past the skip set per version of it; with pacing, campaigns are held back and
  // offered again all the time, so the set is kept in place and hold-backs leave it together at most every 100 ms.
  it('should keep one skip set in place: skipped at once, hold-backs leaving together at most every 100 ms as a new version', async () => {
    const index = await emptyIndex();
    const skipped = index.skippedAt(NOW);
    expect(sorted(skipped)).toEqual([]);

    index.markExhausted(['a']);
    index.holdBack(['b'], NOW + 1000);
    index.holdBack(['c'], NOW + 1050);
    expect(index.skippedAt(NOW + 10)).toBe(skipped);
    expect(sorted(skipped)).toEqual(['a', 'b', 'c']);
    expect(index.isExhausted('a')).toBe(true);
    expect(index.isExhausted('b')).toBe(false);
    // only added to: the answers found past it still hold (the cache filters what was added since)
    const added = skipped.version;

    // b's line moved on; c's time is up 50 ms later, when the last release is not 100 ms old
    expect(sorted(index.skippedAt(NOW + 900))).toEqual(['a', 'b', 'c']);
    expect(sorted(index.skippedAt(NOW + 1000))).toEqual(['a', 'c']);
    expect(skipped.version).toBe(added + 1);
    expect(sorted(index.skippedAt(NOW + 1060))).toEqual(['a', 'c']);
    expect(sorted(index.skippedAt(NOW + 1100))).toEqual(['a']);
    expect(skipped.version).toBe(added + 2);

    // held back again for longer: the earlier time does not release it
    index.holdBack(['d'], NOW + 1200);
    index.holdBack(['d'], NOW + 3000);
    expect(sorted(index.skippedAt(NOW + 1300))).toEqual(['a', 'd']);
    expect(sorted(index.skippedAt(NOW + 3000))).toEqual(['a']);
    // an exhausted campaign stays skipped when a hold-back of it ends
    index.holdBack(['a'], NOW + 3100);
    expect(sorted(index.skippedAt(NOW + 3200))).toEqual(['a']);
    expect(sorted(index.allSkippedAt(NOW + 3200))).toEqual(['a']);

    // a reload of a (changed, or gone) offers it again at the next request, not 100 ms later
    index.holdBack(['e'], NOW + 9000);
    await index.reloadMany(['a']);
    expect(sorted(index.skippedAt(NOW + 3201))).toEqual(['e']);
    expect(index.isExhausted('a')).toBe(false);

    // a full refresh reads the spend again: the exhausted are offered again, the held back stay held back
    index.markExhausted(['f']);
    index.holdBack(['f'], NOW + 9000);
    index.markExhausted(['g']);
    await index.refresh();
    expect(sorted(index.skippedAt(NOW + 3300))).toEqual(['e', 'f']);
    expect(index.skippedAt(NOW + 3300)).toBe(skipped);
  });

  it('should keep the later of two hold-backs of a campaign, whichever answer came last', async () => {
    const index = await emptyIndex();
    // a newer request's answer first, then an older request's with the earlier time its pacing line had then
    index.holdBack(['h'], NOW + 2040);
    index.holdBack(['h'], NOW + 1990);
    expect(sorted(index.skippedAt(NOW + 2000))).toEqual(['h']);
    expect(sorted(index.skippedAt(NOW + 2100))).toEqual([]);
  });

  it("should hand the match cache its skip set, with a block's own hold-backs and a request's offered campaigns beside it", async () => {
    const index = await emptyIndex();
    const select = jest.spyOn(MatchCache.prototype, 'select');
    try {
      index.markExhausted(['a']);
      index.candidates(CONTEXT, 8);
      index.holdBackOnBlock('block-1', ['b'], NOW + 1000);
      index.candidates(CONTEXT, 8, index.skippedOn(NOW, 'block-1'), null, new Set(['c']));
      expect(select.mock.calls.map((call) => call[6])).toEqual([index.skippedAt(NOW), index.skippedAt(NOW)]);
      expect(select.mock.calls[0][6]).toBe(index.skippedAt(NOW));
      expect(select.mock.calls.map((call) => sorted(call[3]))).toEqual([[], ['b']]);
      expect(select.mock.calls[1][5]).toEqual(new Set(['c']));
    } finally {
      select.mockRestore();
    }
  });

  it("should build an ad block's own skip set once per change, never per request, and drop its hold-backs when their time is up", async () => {
    const index = await emptyIndex();
    index.markExhausted(['a']);
    expect(index.skippedOn(NOW + 100, 'block-1')).toBeUndefined();

    index.holdBackOnBlock('block-1', ['b'], NOW + 1000);
    const onBlock = index.skippedOn(NOW, 'block-1');
    expect(sorted(onBlock)).toEqual(['b']);
    expect(index.skippedOn(NOW + 500, 'block-1')).toBe(onBlock);
    expect(index.skippedOn(NOW, 'block-2')).toBeUndefined();

    // a change: a new set, the one handed out unchanged
    index.holdBackOnBlock('block-1', ['c'], NOW + 2000);
    const more = index.skippedOn(NOW, 'block-1');
    expect(sorted(more)).toEqual(['b', 'c']);
    expect(sorted(onBlock)).toEqual(['b']);

    // b's time is up, then c's
    expect(sorted(index.skippedOn(NOW + 1000, 'block-1'))).toEqual(['c']);
    expect(index.skippedOn(NOW + 2000, 'block-1')).toBeUndefined();
  });
});
