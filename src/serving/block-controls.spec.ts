import { controlsOf } from '../ad-blocks/ad-blocks.service';
import { refusedBy } from './block-controls';
import { IndexedCampaign, MatchCache, MatchContext, rankCampaigns, selectCandidates } from './campaign-matcher';
import { controlChecks } from './delivery-checks';

const NOW = Date.UTC(2026, 0, 10, 12);

function campaign(id: string, overrides: Partial<IndexedCampaign> = {}): IndexedCampaign {
  return {
    id,
    adId: `ad_${id}`,
    accountId: 'acc',
    includedRegions: new Set(),
    excludedRegions: new Set(),
    includedLanguages: new Set(),
    excludedLanguages: new Set(),
    platform: 'All',
    messengerPremium: false,
    isHighValueUser: false,
    userLinkedChainWallet: false,
    userLinkedWallet: false,
    userWalletHasBalanceOnChain: false,
    billingType: 'CPM',
    costPerMicros: 2_000_000,
    startTime: NOW - 1000,
    endTime: NOW + 1000,
    totalBudgetMicros: 10_000_000,
    dailyBudgetMicros: 1_000_000,
    spentMicros: 0,
    daySpentMicros: 0,
    spentDay: '',
    pacing: 'asap',
    optimizationEvent: 'conversion',
    timeZone: 'UTC',
    nextTimeZone: null,
    timeZoneChangesAt: null,
    category: 'other',
    destinationHost: 'shop.example.org',
    ecpmMicros: 2_000_000,
    creative: { icon: 'i', image: 'm', text: 't', brandName: 'b', buttonText: 'go', destination: { actionType: 'visit.website', url: 'u' } },
    ...overrides,
  };
}

const context: MatchContext = {
  now: NOW,
  country: 'US',
  language: 'en',
  platform: 'iOS',
  premium: false,
  highValue: false,
  linkedWallet: false,
  linkedChainWallet: false,
  walletHasBalance: false,
};

const controls = (fields: Partial<Parameters<typeof controlsOf>[0]>) =>
  controlsOf({ floorCpmMicros: 0, floorCpcMicros: 0, blockedCategories: null, blockedDomains: null, ...fields });

describe('block controls', () => {
  it('should be null for a block that refuses nothing, and share a key between equal controls', () => {
    expect(controls({ blockedCategories: [], blockedDomains: [] })).toBeNull();
    expect(controls({ blockedCategories: ['dating', 'gambling'] })!.key).toBe(controls({ blockedCategories: ['gambling', 'dating'] })!.key);
    expect(controls({ floorCpmMicros: 1 })!.key).not.toBe(controls({ floorCpcMicros: 1 })!.key);
  });

  it('should refuse a bid below the floor of its own billing type only', () => {
    const floors = controls({ floorCpmMicros: 2_000_000, floorCpcMicros: 100_000 })!;
    expect(refusedBy(floors, campaign('a', { costPerMicros: 1_999_999 }))).toBe('floor');
    expect(refusedBy(floors, campaign('a', { costPerMicros: 2_000_000 }))).toBeNull();
    expect(refusedBy(floors, campaign('a', { billingType: 'CPC', costPerMicros: 99_999 }))).toBe('floor');
    expect(refusedBy(floors, campaign('a', { billingType: 'CPC', costPerMicros: 100_000 }))).toBeNull();
    expect(refusedBy(controls({ floorCpmMicros: 5_000_000 })!, campaign('a', { billingType: 'CPC', costPerMicros: 10_000 }))).toBeNull();
  });

  it('should refuse a blocked category, a blocked domain and its subdomains, not a look-alike', () => {
    const blocked = controls({ blockedCategories: ['gambling'], blockedDomains: ['example.org'] })!;
    expect(refusedBy(blocked, campaign('a', { category: 'gambling', destinationHost: 'other.net' }))).toBe('category');
    expect(refusedBy(blocked, campaign('a', { destinationHost: 'example.org' }))).toBe('domain');
    expect(refusedBy(blocked, campaign('a', { destinationHost: 'a.shop.example.org' }))).toBe('domain');
    expect(refusedBy(blocked, campaign('a', { destinationHost: 'badexample.org' }))).toBeNull();
    expect(refusedBy(blocked, campaign('a', { category: 'games', destinationHost: 'example.org.evil.net' }))).toBeNull();
  });

  it('should answer through the match cache exactly what the plain scan answers, per block', () => {
    const ranked = rankCampaigns([
      campaign('cheap', { costPerMicros: 500_000, ecpmMicros: 500_000 }),
      campaign('bet', { category: 'gambling', ecpmMicros: 9_000_000 }),
      campaign('sub', { destinationHost: 'ads.blocked.io', ecpmMicros: 8_000_000 }),
      campaign('lookalike', { destinationHost: 'notblocked.io', ecpmMicros: 7_000_000 }),
      campaign('cpc', { billingType: 'CPC', costPerMicros: 50_000, ecpmMicros: 600_000 }),
    ]);
    const cache = new MatchCache();
    const strict = controls({ floorCpmMicros: 1_000_000, floorCpcMicros: 60_000, blockedCategories: ['gambling'], blockedDomains: ['blocked.io'] })!;
    for (const each of [null, strict, controls({ blockedCategories: ['gambling'] })]) {
      const expected = selectCandidates(ranked, context, 10, undefined, each).map((c) => c.id);
      expect(cache.select(ranked, context, 10, undefined, each).map((c) => c.id)).toEqual(expected);
      // twice: the second answer comes from the cached entry of that block's controls
      expect(cache.select(ranked, context, 10, undefined, each).map((c) => c.id)).toEqual(expected);
    }
    expect(cache.select(ranked, context, 10, undefined, strict).map((c) => c.id)).toEqual(['lookalike']);
    expect(cache.select(ranked, context, 10).map((c) => c.id)).toEqual(['bet', 'sub', 'lookalike', 'cpc', 'cheap']);
  });

  it('should fail exactly the diagnosis check refusedBy names, for every campaign and controls', () => {
    const campaigns = [
      campaign('a', { costPerMicros: 1_000_000 }),
      campaign('b', { category: 'gambling' }),
      campaign('c', { destinationHost: 'x.blocked.io' }),
      campaign('d', { billingType: 'CPC', costPerMicros: 10_000, category: 'dating', destinationHost: 'blocked.io' }),
      campaign('e'),
    ];
    const each = [
      null,
      controls({ floorCpmMicros: 1_500_000 }),
      controls({ floorCpcMicros: 20_000, blockedCategories: ['gambling'] }),
      controls({ blockedCategories: ['dating'], blockedDomains: ['blocked.io'] }),
    ];
    for (const c of campaigns) {
      for (const block of each) {
        const failing = controlChecks(c, block)
          .filter((check) => !check.passed)
          .map((check) => check.check);
        const rule = block === null ? null : refusedBy(block, c);
        // refusedBy names the first; the checks name every control that refuses it
        expect(failing[0] ?? null).toBe(rule);
      }
    }
  });
});
