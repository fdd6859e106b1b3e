import { toIndexed } from '../serving/campaign-index.service';
import { rankCampaigns, type IndexedCampaign } from '../serving/campaign-matcher';
import type { Campaign } from '../campaigns/entities/campaign.entity';
import { forecastDelivery, MIN_SAMPLE_SPAN_MS } from './forecast';
import type { ContextWeight } from './forecast-sample';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 4, 12);

function campaign(id: string, overrides: Partial<Campaign> = {}, regions: string[] = []): IndexedCampaign {
  return toIndexed({
    id,
    accountId: `account-${id}`,
    targeting: {
      includedRegions: regions,
      excludedRegions: [],
      includedLanguages: [],
      excludedLanguages: [],
      platform: 'All',
      messengerPremium: false,
      isHighValueUser: false,
      userLinkedChainWallet: false,
      userLinkedWallet: false,
      userWalletHasBalanceOnChain: false,
    },
    billingType: 'CPM',
    costPerMicros: 2_500_000,
    dailyBudgetMicros: 50_000_000,
    totalBudgetMicros: 1_000_000_000,
    startTime: NOW - DAY,
    endTime: NOW + 30 * DAY,
    clicks: 0,
    impressions: 0,
    spentMicros: 0,
    daySpentMicros: 0,
    spentDay: '',
    pacing: 'asap',
    timeZone: 'UTC',
    nextTimeZone: null,
    timeZoneChangesAt: null,
    ...overrides,
  } as unknown as Campaign);
}

const traffic = (country: string, requests: number, adLimit = 1): ContextWeight => ({
  adBlockId: 'block-1',
  country,
  language: 'en',
  platform: 'Android',
  flags: 0,
  adLimit,
  requests,
});
const SAMPLE = [traffic('US', 100), traffic('GB', 100), traffic('DE', 100)];

describe(forecastDelivery.name, () => {
  const run = (draft: IndexedCampaign, competitors: IndexedCampaign[] = [], contexts = SAMPLE, sampleSpanMs = DAY) =>
    forecastDelivery({ draft, contexts, sampleSpanMs, competitors: rankCampaigns(competitors), now: NOW });

  it('scales the sample to a day and prices what the draft wins', () => {
    expect(run(campaign('d'))).toEqual({
      dailyRequests: 300,
      dailyImpressions: 300,
      dailyClicks: 3,
      dailySpendMicros: 750_000,
      daysToSpendTotal: 1334,
      limitedBy: 'inventory',
    });
    // two days of sample: half a day's worth each day
    expect(run(campaign('d'), [], SAMPLE, 2 * DAY).dailyImpressions).toBe(150);
    // a few minutes of sample count as an hour
    expect(run(campaign('d'), [], SAMPLE, 60_000).dailyRequests).toBe((300 * DAY) / MIN_SAMPLE_SPAN_MS);
  });

  it('gives a targeting that matches a third of the traffic a third of the impressions', () => {
    expect(run(campaign('d', {}, ['US'])).dailyImpressions).toBe(100);
    expect(run(campaign('d', {}, ['US'])).dailyRequests).toBe(300);
  });

  it('stops at the daily budget, or the total when smaller', () => {
    expect(run(campaign('d', { dailyBudgetMicros: 500_000 }))).toEqual(
      expect.objectContaining({ dailyImpressions: 200, dailySpendMicros: 500_000, daysToSpendTotal: 2000, limitedBy: 'budget' }),
    );
    expect(run(campaign('d', { totalBudgetMicros: 250_000 }))).toEqual(
      expect.objectContaining({ dailySpendMicros: 250_000, daysToSpendTotal: 1, limitedBy: 'budget' }),
    );
  });

  it('says bid when better campaigns take the requests it matches, and counts only those that match them', () => {
    const rich = campaign('rich', { costPerMicros: 5_000_000 });
    expect(run(campaign('d'), [rich])).toEqual(expect.objectContaining({ dailyImpressions: 0, dailySpendMicros: 0, daysToSpendTotal: null, limitedBy: 'bid' }));
    // with two ads a request, the second place is the draft's
    expect(run(campaign('d'), [rich], [traffic('US', 300, 2)]).dailyImpressions).toBe(300);
    // a better campaign targeting the US only leaves GB and DE
    expect(run(campaign('d'), [campaign('us', { costPerMicros: 5_000_000 }, ['US'])]).dailyImpressions).toBe(200);
    // a campaign bidding less, or one not live, is no competition
    expect(
      run(campaign('d'), [campaign('poor', { costPerMicros: 1_000_000 }), campaign('old', { costPerMicros: 9_000_000, endTime: NOW - 1 })]).dailyImpressions,
    ).toBe(300);
  });

  it('says inventory when nothing is sampled or nothing matches', () => {
    expect(run(campaign('d'), [], [])).toEqual({
      dailyRequests: 0,
      dailyImpressions: 0,
      dailyClicks: 0,
      dailySpendMicros: 0,
      daysToSpendTotal: null,
      limitedBy: 'inventory',
    });
    expect(run(campaign('d', {}, ['FR'])).limitedBy).toBe('inventory');
  });

  it('says schedule for a window that has ended or is too short to spend the day', () => {
    expect(run(campaign('d', { endTime: NOW - 1 }))).toEqual(expect.objectContaining({ dailyImpressions: 0, limitedBy: 'schedule' }));
    const tenMinutes = run(campaign('d', { startTime: NOW, endTime: NOW + 600_000, dailyBudgetMicros: 1_000_000 }), [], [traffic('US', 14_400)]);
    expect(tenMinutes).toEqual(expect.objectContaining({ dailyImpressions: 100, dailySpendMicros: 250_000, limitedBy: 'schedule' }));
  });

  it('prices a CPC draft at the prior click-through rate', () => {
    const cpc = campaign('d', { billingType: 'CPC', costPerMicros: 100_000 });
    expect(run(cpc)).toEqual(expect.objectContaining({ dailyImpressions: 300, dailyClicks: 3, dailySpendMicros: 300_000 }));
  });

  it("applies each block's controls to the draft and its competitors alike", () => {
    const strict = { key: 'strict', floorCpmMicros: 3_000_000, floorCpcMicros: 0, blockedCategories: new Set<string>(), blockedDomains: [] };
    const contexts = [...SAMPLE, { ...traffic('US', 300), adBlockId: 'strict' }];
    const controlsOf = (adBlockId: string) => (adBlockId === 'strict' ? strict : null);
    // below the strict block's floor: only the other block's 300
    const below = forecastDelivery({ draft: campaign('d'), contexts, sampleSpanMs: DAY, competitors: [], now: NOW, controlsOf });
    expect(below).toEqual(expect.objectContaining({ dailyRequests: 600, dailyImpressions: 300 }));
    // a competitor the block refuses (a blocked category) does not take its requests from the draft
    const gambling = campaign('g', { costPerMicros: 9_000_000, category: 'gambling' } as Partial<Campaign>);
    const noGambling = { ...strict, key: 'no-gambling', blockedCategories: new Set(['gambling']) };
    const figures = forecastDelivery({
      draft: campaign('d', { costPerMicros: 4_000_000 }),
      contexts: [{ ...traffic('US', 300), adBlockId: 'strict' }],
      sampleSpanMs: DAY,
      competitors: [gambling],
      now: NOW,
      controlsOf: () => noGambling,
    });
    expect(figures.dailyImpressions).toBe(300);
    expect(
      forecastDelivery({
        ...{
          draft: campaign('d', { costPerMicros: 4_000_000 }),
          contexts: [{ ...traffic('US', 300), adBlockId: 'open' }],
          sampleSpanMs: DAY,
          competitors: [gambling],
          now: NOW,
        },
      }).dailyImpressions,
    ).toBe(0);
  });
});
