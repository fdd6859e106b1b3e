import {
  entryIdOf,
  ExchangeContext,
  IndexedExchangeCampaign,
  isFarInDebt,
  matchesExchangeTargeting,
  rankExchangeCampaigns,
  selectExchangeCandidates,
} from './exchange-matcher';

const campaign = (id: string, accountId: string, overrides: Partial<IndexedExchangeCampaign> = {}): IndexedExchangeCampaign => ({
  id,
  entryId: entryIdOf(id),
  accountId,
  includedRegions: new Set(),
  excludedRegions: new Set(),
  includedLanguages: new Set(),
  excludedLanguages: new Set(),
  balance: 0,
  creative: { icon: 'https://x/i.png', image: null, text: id, destination: { actionType: 'visit.website', url: 'https://x' } },
  ...overrides,
});

const context = (overrides: Partial<ExchangeContext> = {}): ExchangeContext => ({
  callerAccountId: 'caller',
  country: 'US',
  language: 'en',
  ...overrides,
});

describe('exchange matcher', () => {
  describe(rankExchangeCampaigns.name, () => {
    it('should put partners that sent more than they received first, by their balance over all their campaigns', () => {
      const ranked = rankExchangeCampaigns(
        [campaign('c1', 'debtor', { balance: 5 }), campaign('c2', 'creditor', { balance: -1 }), campaign('c3', 'even')],
        new Map([
          ['debtor', -3],
          ['creditor', 4],
          ['even', 0],
        ]),
        100,
      );
      expect(ranked.map((c) => [c.id, c.partnerBalance])).toEqual([
        ['c2', 4],
        ['c3', 0],
        ['c1', -3],
      ]);
    });

    it("should break a partner tie by the campaign's own balance, then oldest id first", () => {
      const ranked = rankExchangeCampaigns(
        [campaign('c3', 'a', { balance: 1 }), campaign('c2', 'a', { balance: 2 }), campaign('c1', 'b', { balance: 1 })],
        new Map([
          ['a', 3],
          ['b', 3],
        ]),
        100,
      );
      expect(ranked.map((c) => c.id)).toEqual(['c2', 'c1', 'c3']);
    });

    it("should use the campaign's balance when the partner's is not known", () => {
      const ranked = rankExchangeCampaigns([campaign('c1', 'a', { balance: -2 }), campaign('c2', 'b', { balance: 1 })], new Map(), 100);
      expect(ranked.map((c) => [c.id, c.partnerBalance])).toEqual([
        ['c2', 1],
        ['c1', -2],
      ]);
    });

    it('should mark partners below -debtLimit as far in debt, and not those at the limit', () => {
      expect([isFarInDebt(-3, 2), isFarInDebt(-2, 2), isFarInDebt(0, 0), isFarInDebt(-1, 0)]).toEqual([true, false, false, true]);
      const ranked = rankExchangeCampaigns(
        [campaign('c1', 'a'), campaign('c2', 'b')],
        new Map([
          ['a', -2],
          ['b', -3],
        ]),
        2,
      );
      expect(ranked.map((c) => [c.id, c.farInDebt])).toEqual([
        ['c1', false],
        ['c2', true],
      ]);
    });
  });

  describe(matchesExchangeTargeting.name, () => {
    it('should match everyone without targeting, also with unknown region and language', () => {
      expect(matchesExchangeTargeting(campaign('c', 'a'), context({ country: null, language: null }))).toBe(true);
    });

    it('should never match an unknown value against an include list', () => {
      const regions = campaign('c', 'a', { includedRegions: new Set(['US']) });
      expect(matchesExchangeTargeting(regions, context())).toBe(true);
      expect(matchesExchangeTargeting(regions, context({ country: 'DE' }))).toBe(false);
      expect(matchesExchangeTargeting(regions, context({ country: null }))).toBe(false);
      const languages = campaign('c', 'a', { includedLanguages: new Set(['de']) });
      expect(matchesExchangeTargeting(languages, context({ language: 'de' }))).toBe(true);
      expect(matchesExchangeTargeting(languages, context())).toBe(false);
      expect(matchesExchangeTargeting(languages, context({ language: null }))).toBe(false);
    });

    it('should exclude a known value on an exclude list and not an unknown one', () => {
      const regions = campaign('c', 'a', { excludedRegions: new Set(['US']) });
      expect(matchesExchangeTargeting(regions, context())).toBe(false);
      expect(matchesExchangeTargeting(regions, context({ country: null }))).toBe(true);
      const languages = campaign('c', 'a', { excludedLanguages: new Set(['en']) });
      expect(matchesExchangeTargeting(languages, context())).toBe(false);
      expect(matchesExchangeTargeting(languages, context({ language: null }))).toBe(true);
    });
  });

  describe(selectExchangeCandidates.name, () => {
    const ranked = rankExchangeCampaigns(
      [
        campaign('own1', 'caller'),
        campaign('a1', 'a'),
        campaign('a2', 'a'),
        campaign('b1', 'b', { includedRegions: new Set(['DE']) }),
        campaign('d1', 'debtor1'),
        campaign('d2', 'debtor2'),
      ],
      new Map([
        ['caller', 9],
        ['a', 1],
        ['b', 0],
        ['debtor1', -5],
        ['debtor2', -6],
      ]),
      2,
    );

    it("should never offer the caller's own campaigns, and keep far-in-debt partners apart, each in rank order", () => {
      const { regular, debtors } = selectExchangeCandidates(ranked, context(), 9);
      expect(regular.map((c) => c.id)).toEqual(['a1', 'a2']);
      expect(debtors.map((c) => c.id)).toEqual(['d1', 'd2']);
    });

    it('should apply targeting, skip what it is told to, and stop at max per group', () => {
      expect(selectExchangeCandidates(ranked, context({ country: 'DE' }), 9).regular.map((c) => c.id)).toEqual(['a1', 'a2', 'b1']);
      expect(selectExchangeCandidates(ranked, context(), 9, new Set(['a1', 'd1'])).regular.map((c) => c.id)).toEqual(['a2']);
      const capped = selectExchangeCandidates(ranked, context(), 1);
      expect([capped.regular.map((c) => c.id), capped.debtors.map((c) => c.id)]).toEqual([['a1'], ['d1']]);
    });

    it('should offer the own partner nothing when it is the only one', () => {
      const alone = rankExchangeCampaigns([campaign('own1', 'caller'), campaign('own2', 'caller')], new Map(), 100);
      expect(selectExchangeCandidates(alone, context(), 9)).toEqual({ regular: [], debtors: [] });
    });
  });
});
