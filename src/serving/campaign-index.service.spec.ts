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

const sorted = (set: ReadonlySet<string>) => [...set].sort();

describe(CampaignIndexService.name, () => {
  // The match cache keeps its answers per skip set it was given, found again by the set's identity; with pacing,
  // campaigns are held back and offered again all the time, so the set is built at most every 100 ms.
  it('should hand out one skip set, never changed, built anew at most every 100 ms and at once for a campaign offered again', async () => {
    const index = await emptyIndex();
    const none = index.skippedAt(NOW);
    expect(sorted(none)).toEqual([]);

    // within 100 ms of the last build: the same set; what was skipped since is skipped too (allSkippedAt, candidates)
    index.markExhausted(['a']);
    expect(index.skippedAt(NOW + 50)).toBe(none);
    expect(sorted(index.allSkippedAt(NOW + 50))).toEqual(['a']);
    const exhausted = index.skippedAt(NOW + 100);
    expect(sorted(exhausted)).toEqual(['a']);
    expect(sorted(none)).toEqual([]);

    index.holdBack(['b'], NOW + 1000);
    expect(index.skippedAt(NOW + 150)).toBe(exhausted);
    expect(sorted(index.allSkippedAt(NOW + 150))).toEqual(['a', 'b']);
    expect(index.isExhausted('a')).toBe(true);
    expect(index.isExhausted('b')).toBe(false);

    const heldBack = index.skippedAt(NOW + 200);
    expect(sorted(heldBack)).toEqual(['a', 'b']);
    expect(sorted(exhausted)).toEqual(['a']);
    expect(index.skippedAt(NOW + 500)).toBe(heldBack);

    // b's line moved on
    const released = index.skippedAt(NOW + 1000);
    expect(sorted(released)).toEqual(['a']);
    expect(sorted(heldBack)).toEqual(['a', 'b']);

    // a reload of a (changed, or gone) offers it again at the next request, not 100 ms later
    await index.reloadMany(['a']);
    expect(sorted(index.skippedAt(NOW + 1001))).toEqual([]);
    expect(index.isExhausted('a')).toBe(false);
  });

  it("should hand the match cache the shared set as shared, and what was skipped since it was built, and a request's own set as not shared", async () => {
    const index = await emptyIndex();
    const select = jest.spyOn(MatchCache.prototype, 'select');
    try {
      index.markExhausted(['a']);
      index.candidates(CONTEXT, 8, index.skippedAt(NOW + 100));
      index.holdBack(['b'], NOW + 1000);
      index.candidates(CONTEXT, 8, index.skippedAt(NOW + 110), null, new Set(['c']));
      index.candidates(CONTEXT, 8, new Set(['a']));
      expect(select.mock.calls.map((call) => call[6])).toEqual([true, true, false]);
      expect(select.mock.calls.map((call) => (call[7] === undefined ? [] : [...call[7].ids].sort()))).toEqual([[], ['b'], ['b']]);
      expect(select.mock.calls[1][5]).toEqual(new Set(['c']));
    } finally {
      select.mockRestore();
    }
  });

  it("should build an ad block's skip set once per change, never per request, and drop its hold-backs when their time is up", async () => {
    const index = await emptyIndex();
    index.markExhausted(['a']);
    expect(index.skippedOn(NOW + 100, 'block-1')).toBe(index.skippedAt(NOW + 100));
    expect(sorted(index.skippedAt(NOW + 100))).toEqual(['a']);

    index.holdBackOnBlock('block-1', ['b'], NOW + 1000);
    const onBlock = index.skippedOn(NOW, 'block-1');
    expect(sorted(onBlock)).toEqual(['a', 'b']);
    expect(index.skippedOn(NOW + 500, 'block-1')).toBe(onBlock);
    expect(index.skippedOn(NOW, 'block-2')).toBe(index.skippedAt(NOW));

    // a change of either part: a new set, the one handed out unchanged
    index.holdBackOnBlock('block-1', ['c'], NOW + 2000);
    const more = index.skippedOn(NOW, 'block-1');
    expect(sorted(more)).toEqual(['a', 'b', 'c']);
    index.markExhausted(['d']);
    const withExhausted = index.skippedOn(NOW + 200, 'block-1');
    expect(sorted(withExhausted)).toEqual(['a', 'b', 'c', 'd']);
    expect(sorted(onBlock)).toEqual(['a', 'b']);
    expect(sorted(more)).toEqual(['a', 'b', 'c']);

    // b's time is up, then c's
    expect(sorted(index.skippedOn(NOW + 1000, 'block-1'))).toEqual(['a', 'c', 'd']);
    expect(index.skippedOn(NOW + 2000, 'block-1')).toBe(index.skippedAt(NOW + 2000));
  });
});
