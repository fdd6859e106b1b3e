import { Clock } from '../common/clock';
import { TrafficClassifier } from '../trust/traffic-classifier';
import type { CampaignIndexService } from './campaign-index.service';
import { IndexedCampaign, MatchCache, MatchContext, selectCandidates } from './campaign-matcher';
import { GeoService } from './geo.service';
import { ServingWarmup } from './serving-warmup';

const NOW = Date.now();

function campaign(id: string, targeting: Partial<Pick<IndexedCampaign, 'includedRegions' | 'excludedRegions' | 'includedLanguages'>>): IndexedCampaign {
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
    costPerMicros: 1_000_000,
    startTime: NOW - 60_000,
    endTime: NOW + 3_600_000,
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
    ecpmMicros: 1_000_000,
    creative: { icon: 'i', image: 'm', text: 't', brandName: 'b', buttonText: 'go', destination: { actionType: 'visit.website', url: 'u' } },
    ...targeting,
  };
}

/** The index's matching over a fixed list, recording every context asked. */
function indexOf(ranked: IndexedCampaign[]) {
  const cache = new MatchCache();
  const asked: MatchContext[] = [];
  const index = {
    ranked,
    skippedAt: () => new Set<string>(),
    candidates(context: MatchContext, max: number, skip: ReadonlySet<string>) {
      asked.push(context);
      return cache.select(ranked, context, max, skip);
    },
  };
  return { index: index as unknown as CampaignIndexService, asked, cache };
}

describe(ServingWarmup.name, () => {
  const geo = new GeoService();
  const traffic = new TrafficClassifier();
  const ranked = [
    campaign('c1', { includedRegions: new Set(['DE']) }),
    campaign('c2', { excludedRegions: new Set(['FR']), includedLanguages: new Set(['pt']) }),
    campaign('c3', {}),
  ];

  it('should match every country and language the campaigns name, and none, on every platform', () => {
    const { index, asked } = indexOf(ranked);
    const summary = new ServingWarmup(index, geo, traffic, new Clock()).warm();
    // 3 countries (DE, FR, none) x 2 languages (pt, none) x 4 platforms x 12 flag sets
    expect(summary.contexts).toBe(3 * 2 * 4 * 12);
    expect(summary.campaigns).toBe(3);
    const seen = (pick: (context: MatchContext) => string | null) => [...new Set(asked.map(pick))].sort();
    expect(seen((context) => context.country)).toEqual(['DE', 'FR', null]);
    expect(seen((context) => context.language)).toEqual([null, 'pt']);
    expect(seen((context) => context.platform)).toEqual(['Android', 'Desktop', 'iOS', null]);
  });

  it('should leave the answers as they were: the same candidates as a match without any cache', () => {
    const { index, cache } = indexOf(ranked);
    new ServingWarmup(index, geo, traffic, new Clock()).warm();
    for (const country of ['DE', 'FR', 'US', null]) {
      for (const language of ['pt', 'en', null]) {
        const context: MatchContext = {
          now: NOW,
          country,
          language,
          platform: 'iOS',
          premium: false,
          highValue: false,
          linkedWallet: false,
          linkedChainWallet: false,
          walletHasBalance: false,
        };
        expect(cache.select(ranked, context, 5, new Set()).map((c) => c.id)).toEqual(selectCandidates(ranked, context, 5).map((c) => c.id));
      }
    }
  });

  it('should stop at the number of contexts it is given', () => {
    const { index, asked } = indexOf(ranked);
    expect(new ServingWarmup(index, geo, traffic, new Clock()).warm(10).contexts).toBe(10);
    // three passes over the same ten contexts
    expect(asked).toHaveLength(30);
  });

  it('should do nothing on an empty index', () => {
    const { index, asked } = indexOf([]);
    expect(new ServingWarmup(index, geo, traffic, new Clock()).warm()).toEqual({ contexts: 0, campaigns: 0, ms: 0 });
    expect(asked).toHaveLength(0);
  });
});
