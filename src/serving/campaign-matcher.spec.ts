import {
  expectedRevenuePerMille,
  IndexedCampaign,
  matchesTargeting,
  MatchContext,
  rankCampaigns,
  selectCandidates,
  smoothedCtr,
} from './campaign-matcher';

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
    costPerMicros: 1_000_000,
    startTime: NOW - 1000,
    endTime: NOW + 1000,
    totalBudgetMicros: 10_000_000,
    dailyBudgetMicros: 1_000_000,
    spentMicros: 0,
    daySpentMicros: 0,
    spentDay: '',
    ecpmMicros: 1_000_000,
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

describe('campaign matcher', () => {
  describe(matchesTargeting.name, () => {
    it('should match a campaign without targeting for anyone, also with nothing known', () => {
      const unknown = { ...context, country: null, language: null, platform: null };
      expect(matchesTargeting(campaign('a'), context)).toBe(true);
      expect(matchesTargeting(campaign('a'), unknown)).toBe(true);
    });

    it('should apply region include and exclude lists; an unknown country only fails include lists', () => {
      const us = campaign('a', { includedRegions: new Set(['US']) });
      const notUs = campaign('b', { excludedRegions: new Set(['US']) });
      expect(matchesTargeting(us, context)).toBe(true);
      expect(matchesTargeting(us, { ...context, country: 'DE' })).toBe(false);
      expect(matchesTargeting(us, { ...context, country: null })).toBe(false);
      expect(matchesTargeting(notUs, context)).toBe(false);
      expect(matchesTargeting(notUs, { ...context, country: 'DE' })).toBe(true);
      expect(matchesTargeting(notUs, { ...context, country: null })).toBe(true);
    });

    it('should apply language include and exclude lists the same way', () => {
      const en = campaign('a', { includedLanguages: new Set(['en']) });
      const notEn = campaign('b', { excludedLanguages: new Set(['en']) });
      expect(matchesTargeting(en, context)).toBe(true);
      expect(matchesTargeting(en, { ...context, language: 'de' })).toBe(false);
      expect(matchesTargeting(en, { ...context, language: null })).toBe(false);
      expect(matchesTargeting(notEn, context)).toBe(false);
      expect(matchesTargeting(notEn, { ...context, language: null })).toBe(true);
    });

    it('should match a platform exactly, and All for any device', () => {
      const android = campaign('a', { platform: 'Android' });
      expect(matchesTargeting(android, context)).toBe(false);
      expect(matchesTargeting(android, { ...context, platform: 'Android' })).toBe(true);
      expect(matchesTargeting(android, { ...context, platform: null })).toBe(false);
      expect(matchesTargeting(campaign('b', { platform: 'All' }), { ...context, platform: null })).toBe(true);
    });

    it.each([
      ['messengerPremium', 'premium'],
      ['isHighValueUser', 'highValue'],
      ['userLinkedWallet', 'linkedWallet'],
      ['userLinkedChainWallet', 'linkedChainWallet'],
      ['userWalletHasBalanceOnChain', 'walletHasBalance'],
    ] as const)('should require the user to have %s when the campaign sets it', (flag, userFlag) => {
      const flagged = campaign('a', { [flag]: true });
      expect(matchesTargeting(flagged, context)).toBe(false);
      expect(matchesTargeting(flagged, { ...context, [userFlag]: true })).toBe(true);
      expect(matchesTargeting(campaign('b'), { ...context, [userFlag]: true })).toBe(true);
    });
  });

  describe('ranking', () => {
    it('should estimate CTR with a prior and rank by expected revenue per impression', () => {
      expect(smoothedCtr(0, 0)).toBeCloseTo(0.01);
      expect(smoothedCtr(9, 900)).toBeCloseTo(0.01);
      expect(smoothedCtr(99, 900)).toBeCloseTo(0.1);
      expect(expectedRevenuePerMille('CPM', 2_000_000, 0.5)).toBe(2_000_000);
      expect(expectedRevenuePerMille('CPC', 500_000, 0.01)).toBeCloseTo(5_000_000);

      const ranked = rankCampaigns([
        campaign('low', { ecpmMicros: 1 }),
        campaign('high', { ecpmMicros: 3 }),
        campaign('tie-b', { ecpmMicros: 2 }),
        campaign('tie-a', { ecpmMicros: 2 }),
      ]);
      expect(ranked.map((c) => c.id)).toEqual(['high', 'tie-a', 'tie-b', 'low']);
    });
  });

  describe(selectCandidates.name, () => {
    const ranked = rankCampaigns([
      campaign('c1', { ecpmMicros: 9 }),
      campaign('c2', { ecpmMicros: 8, includedRegions: new Set(['DE']) }),
      campaign('c3', { ecpmMicros: 7, startTime: NOW + 1 }),
      campaign('c4', { ecpmMicros: 6, endTime: NOW }),
      campaign('c5', { ecpmMicros: 5 }),
      campaign('c6', { ecpmMicros: 4 }),
    ]);

    it('should pick live, matching campaigns best first, at most max', () => {
      expect(selectCandidates(ranked, context, 10).map((c) => c.id)).toEqual(['c1', 'c5', 'c6']);
      expect(selectCandidates(ranked, context, 2).map((c) => c.id)).toEqual(['c1', 'c5']);
      expect(selectCandidates(ranked, { ...context, country: 'DE' }, 2).map((c) => c.id)).toEqual(['c1', 'c2']);
    });

    it('should leave out campaigns in the skip set and answer nothing when nothing matches', () => {
      expect(selectCandidates(ranked, context, 10, new Set(['c1'])).map((c) => c.id)).toEqual(['c5', 'c6']);
      expect(selectCandidates(ranked, { ...context, now: NOW + 5000 }, 10)).toEqual([]);
      expect(selectCandidates([], context, 5)).toEqual([]);
    });
  });
});
