import type { CampaignStore } from '../campaigns/campaign-store';
import type { ChangeBus } from '../common/change-bus';
import type { Clock } from '../common/clock';
import { CampaignIndexService } from './campaign-index.service';
import { MatchCache } from './match-cache';
import type { ServingConfig } from './serving.config';

const NOW = Date.UTC(2026, 0, 10, 12);

function emptyIndex(): CampaignIndexService {
  const store = { servable: async () => [], servableCountersPage: async () => [], findByIds: async () => [], findById: async () => null };
  return new CampaignIndexService(
    store as unknown as CampaignStore,
    { indexRefreshMs: 10_000 } as ServingConfig,
    { now: () => NOW } as Clock,
    { on: () => undefined } as unknown as ChangeBus,
  );
}

describe(CampaignIndexService.name, () => {
  // The match cache keeps its answers per skip set it was given, found again by the set's identity.
  it('should hand out a new skip set whenever what it skips changes, and never change one it handed out', async () => {
    const index = emptyIndex();
    await index.refresh();
    const none = index.skippedAt(NOW);
    expect(index.skippedAt(NOW)).toBe(none);

    index.markExhausted(['a']);
    const exhausted = index.skippedAt(NOW);
    expect(exhausted).not.toBe(none);
    expect([...none]).toEqual([]);
    expect([...exhausted]).toEqual(['a']);
    expect(index.skippedAt(NOW)).toBe(exhausted);

    index.holdBack(['b'], NOW + 1000);
    const heldBack = index.skippedAt(NOW);
    expect([...heldBack].sort()).toEqual(['a', 'b']);
    expect([...exhausted]).toEqual(['a']);
    expect(index.skippedAt(NOW + 500)).toBe(heldBack);

    // the line moved on: b is offered again
    const released = index.skippedAt(NOW + 1000);
    expect([...released]).toEqual(['a']);
    expect([...heldBack].sort()).toEqual(['a', 'b']);

    // a reload of a (changed, or gone) drops its exhaustion in a new set
    await index.reloadMany(['a']);
    const reloaded = index.skippedAt(NOW + 1000);
    expect([...reloaded]).toEqual([]);
    expect([...released]).toEqual(['a']);
  });

  it('should tell the match cache when a skip set is its own, shared by every request, and when it is not', async () => {
    const index = emptyIndex();
    await index.refresh();
    const select = jest.spyOn(MatchCache.prototype, 'select');
    try {
      const context = {
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
      index.markExhausted(['a']);
      index.candidates(context, 8, index.skippedAt(NOW));
      index.holdBack(['b'], NOW + 1000);
      index.candidates(context, 8, index.skippedAt(NOW), null, new Set(['c']));
      index.candidates(context, 8, new Set(['a']));
      expect(select.mock.calls.map((call) => call[6])).toEqual([true, true, false]);
      expect(select.mock.calls[1][5]).toEqual(new Set(['c']));
    } finally {
      select.mockRestore();
    }
  });

  it("should build an ad block's skip set once per change, never per request, and drop its hold-backs when their time is up", async () => {
    const index = emptyIndex();
    await index.refresh();
    index.markExhausted(['a']);
    expect(index.skippedOn(NOW, 'block-1')).toBe(index.skippedAt(NOW));

    index.holdBackOnBlock('block-1', ['b'], NOW + 1000);
    const onBlock = index.skippedOn(NOW, 'block-1');
    expect([...onBlock].sort()).toEqual(['a', 'b']);
    expect(index.skippedOn(NOW + 500, 'block-1')).toBe(onBlock);
    expect(index.skippedOn(NOW, 'block-2')).toBe(index.skippedAt(NOW));

    // a change of either part: a new set, the one handed out unchanged
    index.holdBackOnBlock('block-1', ['c'], NOW + 2000);
    const more = index.skippedOn(NOW, 'block-1');
    expect([...more].sort()).toEqual(['a', 'b', 'c']);
    index.markExhausted(['d']);
    const withExhausted = index.skippedOn(NOW, 'block-1');
    expect([...withExhausted].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect([...onBlock].sort()).toEqual(['a', 'b']);
    expect([...more].sort()).toEqual(['a', 'b', 'c']);

    // b's time is up, then c's
    expect([...index.skippedOn(NOW + 1000, 'block-1')].sort()).toEqual(['a', 'c', 'd']);
    expect(index.skippedOn(NOW + 2000, 'block-1')).toBe(index.skippedAt(NOW + 2000));
  });
});
