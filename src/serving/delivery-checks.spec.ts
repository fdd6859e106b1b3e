import fc from 'fast-check';
import { IndexedCampaign, MatchCache, MatchContext, rankCampaigns, selectCandidates } from './campaign-matcher';
import { campaignChecks, FactSources, matchChecks, noCountryDetail, ordinal, stateChecks } from './delivery-checks';
import { MemoryServingState } from './state/memory-serving-state';
import { ImpressionCandidate, previewReserve } from './state/serving-state';
import { utcDay } from '../common/day';
import { dayKeyOf } from '../common/time-zone';

const NOW = Date.UTC(2026, 0, 10, 12);
const COUNTRIES = ['US', 'DE', 'FR'];
const LANGUAGES = ['en', 'de', 'fr'];

const codes = (values: string[]) => fc.uniqueArray(fc.constantFrom(...values), { maxLength: 2 }).map((picked) => new Set(picked));

const campaignArb = (id: string) =>
  fc
    .record({
      includedRegions: codes(COUNTRIES),
      excludedRegions: codes(COUNTRIES),
      includedLanguages: codes(LANGUAGES),
      excludedLanguages: codes(LANGUAGES),
      platform: fc.constantFrom('All', 'All', 'iOS', 'Android', 'Desktop'),
      messengerPremium: fc.boolean(),
      isHighValueUser: fc.boolean(),
      userLinkedWallet: fc.boolean(),
      userLinkedChainWallet: fc.boolean(),
      userWalletHasBalanceOnChain: fc.boolean(),
      startTime: fc.integer({ min: NOW - 10_000, max: NOW + 2_000 }),
      length: fc.integer({ min: 1, max: 20_000 }),
      ecpmMicros: fc.integer({ min: 0, max: 20 }),
    })
    .map(({ length, ...fields }): IndexedCampaign => ({
      id,
      adId: `ad_${id}`,
      accountId: 'acc',
      billingType: 'CPM',
      costPerMicros: 1000,
      endTime: fields.startTime + length,
      totalBudgetMicros: 1_000_000,
      dailyBudgetMicros: 1_000_000,
      spentMicros: 0,
      daySpentMicros: 0,
      spentDay: '',
      pacing: 'asap',
      optimizationEvent: 'conversion',
      timeZone: 'UTC',
      nextTimeZone: null,
      timeZoneChangesAt: null,
      creative: { icon: 'i', image: 'm', text: 't', brandName: 'b', buttonText: 'go', destination: { actionType: 'visit.website', url: 'u' } },
      ...fields,
    }));

const contextArb: fc.Arbitrary<MatchContext> = fc.record({
  now: fc.integer({ min: NOW - 5_000, max: NOW + 15_000 }),
  country: fc.option(fc.constantFrom(...COUNTRIES), { nil: null }),
  language: fc.option(fc.constantFrom(...LANGUAGES), { nil: null }),
  platform: fc.option(fc.constantFrom('iOS' as const, 'Android' as const, 'Desktop' as const), { nil: null }),
  premium: fc.boolean(),
  highValue: fc.boolean(),
  linkedWallet: fc.boolean(),
  linkedChainWallet: fc.boolean(),
  walletHasBalance: fc.boolean(),
});

const sources: FactSources = { ip: '127.0.0.1', country: null, language: null, platform: null, profile: true, noProfileReason: null };

describe('delivery checks', () => {
  it('should say a campaign is servable exactly when the matcher serves it (random campaigns x facts)', () => {
    fc.assert(
      fc.property(campaignArb('c1'), contextArb, (campaign, context) => {
        const checks = matchChecks(campaign, context, sources);
        const servable = checks.every((check) => check.passed);
        expect(servable).toBe(selectCandidates([campaign], context, 1).length === 1);
        expect(servable).toBe(new MatchCache().select([campaign], context, 1).length === 1);
        for (const check of checks) expect(check.detail.length).toBeGreaterThan(0);
      }),
      { seed: 17, numRuns: 1500 },
    );
  });

  it('should rank a servable campaign where the matcher places it among the competition', () => {
    const campaignsArb = fc.tuple(...Array.from({ length: 12 }, (_, i) => campaignArb(`c${String(i).padStart(2, '0')}`)));
    fc.assert(
      fc.property(campaignsArb, contextArb, fc.nat(11), (campaigns, context, pick) => {
        const ranked = rankCampaigns(campaigns);
        const servable = ranked.filter((campaign) => matchChecks(campaign, context, sources).every((check) => check.passed));
        const served = new MatchCache().select(ranked, context, ranked.length);
        expect(servable.map((campaign) => campaign.id)).toEqual(served.map((campaign) => campaign.id));
        const ours = campaigns[pick];
        const position = servable.findIndex((campaign) => campaign.id === ours.id);
        expect(position).toBe(served.indexOf(ours));
      }),
      { seed: 23, numRuns: 500 },
    );
  });

  it('should name the missing country of a local request and how to supply one', () => {
    const regional = { ...fc.sample(campaignArb('r'), { seed: 1, numRuns: 1 })[0], includedRegions: new Set(['DE']) };
    const context: MatchContext = { ...fc.sample(contextArb, { seed: 1, numRuns: 1 })[0], country: null };
    const check = matchChecks(regional, context, sources).find((entry) => entry.check === 'targeting.includedRegions')!;
    expect(check).toEqual({
      check: 'targeting.includedRegions',
      passed: false,
      detail: 'no country for 127.0.0.1: region-targeted campaigns cannot match; a local address has none: give a country to test',
    });
    expect(noCountryDetail({ ...sources, ip: '73.162.10.20' })).toBe(
      'no country for 73.162.10.20: region-targeted campaigns cannot match; give a country to test',
    );
  });

  it('should check status and both budgets as the serving index loads campaigns', () => {
    const facts = {
      status: 'onGoing' as const,
      approved: true,
      spentMicros: 0,
      totalBudgetMicros: 5_000_000,
      daySpentMicros: 0,
      spentDay: '',
      pacing: 'asap',
      optimizationEvent: 'conversion',
      timeZone: 'UTC',
      nextTimeZone: null,
      timeZoneChangesAt: null,
      dailyBudgetMicros: 1_000_000,
    };
    expect(campaignChecks(facts, NOW).every((check) => check.passed)).toBe(true);
    expect(campaignChecks({ ...facts, status: 'paused' }, NOW)[0]).toEqual({ check: 'status', passed: false, detail: 'paused: start it to serve' });
    expect(campaignChecks({ ...facts, spentMicros: 5_000_000 }, NOW)[1]).toEqual({
      check: 'budget.total',
      passed: false,
      detail: '5 USDT spent of 5 USDT: the total budget is spent',
    });
    expect(campaignChecks({ ...facts, daySpentMicros: 1_000_000, spentDay: dayKeyOf(NOW - (NOW % 86_400_000)) }, NOW)[2]).toMatchObject({
      check: 'budget.daily',
      passed: false,
    });
    // yesterday's spend does not count today
    expect(campaignChecks({ ...facts, daySpentMicros: 1_000_000, spentDay: dayKeyOf(NOW - (NOW % 86_400_000) - 86_400_000) }, NOW)[2]).toMatchObject({
      passed: true,
    });
  });

  it('should word the frequency cap and the exclusion of a user from the serving state', () => {
    const budgets = { totalBudgetMicros: 5000, dailyBudgetMicros: 3000, spentMicros: 1000 };
    const state = { excludedUntil: NOW + 600_000, cappedImpressions: 2, spentMicros: 3000, daySpentMicros: 3000, leasedMicros: 0, leaseCoversUnit: false };
    const [budget, cap, exclusion] = stateChecks(budgets, state, { impressions: 2, windowMs: 86_400_000 }, true, NOW);
    expect(budget).toEqual({
      check: 'budget.serving',
      passed: false,
      detail:
        'serving counters: 0.003 USDT of 0.005 USDT in all and 0.003 USDT of 0.003 USDT today spent or held by serving processes ' +
        '(0.002 USDT beyond the recorded spend): nothing left to serve from',
    });
    expect(cap).toEqual({ check: 'frequencyCap', passed: false, detail: '2 of 2 impressions to this user within 24 hours: capped for this user' });
    expect(exclusion).toEqual({
      check: 'exclusion',
      passed: false,
      detail: `the user clicked this ad: hidden from them until ${new Date(NOW + 600_000).toISOString()}`,
    });
    expect(stateChecks(budgets, state, null, false, NOW).map((check) => check.passed)).toEqual([false, true, true]);
  });

  it('should write ordinals', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '101st',
      '111th',
    ]);
  });

  it("should predict the memory state's next reservation from its preview (random requests)", async () => {
    const ad = (n: number, fields: Partial<ImpressionCandidate> = {}): ImpressionCandidate => ({
      campaignId: `c${n}`,
      adId: `ad_c${n}`,
      priceMicros: 1000,
      totalBudgetMicros: 8000,
      dailyBudgetMicros: 5000,
      knownSpentMicros: 0,
      knownDaySpentMicros: 0,
      day: utcDay(NOW),
      ...fields,
    });
    const ads = [
      ad(0, { frequencyCap: { impressions: 2, windowMs: 1000 } }),
      ad(1, { priceMicros: 0 }),
      ad(2, { knownSpentMicros: 6000 }),
      ad(3),
      // an even campaign whose day began just before: its line starts at 5 % of the budget and rises
      ad(4, { dailyBudgetMicros: 40_000, totalBudgetMicros: 80_000, pace: { start: NOW - 100, end: NOW + 10_000 } }),
    ];
    const step = fc.record({
      user: fc.constantFrom('u1', 'u2', 'u3'),
      block: fc.constantFrom('b1', 'b2'),
      advance: fc.nat(600),
      limit: fc.integer({ min: 1, max: 4 }),
      click: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        const state = new MemoryServingState();
        let now = NOW;
        for (const { user, block, advance, limit, click } of steps) {
          now += advance;
          const request = { userId: user, adBlockId: block, now, limit, userImpressionsPerHour: 6 };
          const predicted = previewReserve(request, ads, await state.preview({ userId: user, adBlockId: block, now }, ads));
          const actual = await state.reserveImpressions(request, ads);
          expect(predicted.served).toEqual(actual.served);
          expect(predicted.exhausted).toEqual(actual.exhausted);
          expect(predicted.heldBack).toEqual(actual.heldBack);
          expect(predicted.userCapped).toBe(actual.userCapped);
          if (click && actual.served.length > 0) {
            const clicked = ads[actual.served[0]];
            await state.registerClick({ ...clicked, userId: user, adBlockId: block, now, priceMicros: 0, exclusionMs: 300 });
          }
        }
      }),
      { seed: 31, numRuns: 300 },
    );
  });
});
