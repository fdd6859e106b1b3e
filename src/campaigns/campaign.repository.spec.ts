import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../database/data-source-options';
import { CampaignRepository } from './campaign.repository';
import { Campaign } from './entities/campaign.entity';
import { utcDay } from '../common/day';

/** Any past day the campaign last spent on. */
const SPENT_DAY = utcDay(Date.UTC(2026, 10, 25));

function campaignRow(id: string, fields: Partial<Campaign> = {}): Partial<Campaign> {
  return {
    id,
    accountId: 'acc',
    name: id,
    status: 'onGoing',
    approved: true,
    targeting: { includedRegions: [], excludedRegions: [], includedLanguages: [], excludedLanguages: [], platform: 'All' } as unknown as Campaign['targeting'],
    dailyBudgetMicros: 5_000_000,
    totalBudgetMicros: 100_000_000,
    budgetStrategy: 'daily',
    startTime: 1_000,
    endTime: 9_000_000_000_000,
    billingType: 'CPC',
    costPerMicros: 50_000,
    adFormat: 'image',
    popupImage: 'https://cdn.example.com/a.png',
    icon: 'https://cdn.example.com/i.png',
    actionType: 'visit.website',
    destinationUrl: 'https://example.com/',
    text: 'text',
    brandName: 'brand',
    buttonText: 'Play',
    createdAt: 1_000,
    updatedAt: 1_000,
    ...fields,
  };
}

describe(CampaignRepository.name, () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await new DataSource(dataSourceOptions({ type: 'sqlite', location: ':memory:' }, true)).initialize();
  });
  afterAll(() => dataSource.destroy());

  it('should read the billing facts of many campaigns as plain values, absent ones left out', async () => {
    const campaigns = dataSource.getRepository(Campaign);
    await campaigns.insert(
      campaignRow('c-paused', { status: 'paused', approved: false, billingType: 'CPM', spentMicros: 7, daySpentMicros: 3, spentDay: SPENT_DAY, version: 4 }),
    );
    // more than one IN list's worth
    const many = Array.from({ length: 1200 }, (_, i) => `c-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < many.length; i += 200) await campaigns.insert(many.slice(i, i + 200).map((id) => campaignRow(id)));

    const facts = await new CampaignRepository(campaigns).billingFacts(['c-paused', 'c-unknown', ...many]);

    expect(facts.size).toBe(1201);
    expect(facts.has('c-unknown')).toBe(false);
    expect(facts.get('c-paused')).toEqual({
      id: 'c-paused',
      version: 4,
      status: 'paused',
      approved: false,
      billingType: 'CPM',
      startTime: 1_000,
      endTime: 9_000_000_000_000,
      totalBudgetMicros: 100_000_000,
      dailyBudgetMicros: 5_000_000,
      spentMicros: 7,
      daySpentMicros: 3,
      spentDay: SPENT_DAY,
      timeZone: 'UTC',
      nextTimeZone: null,
      timeZoneChangesAt: null,
    });
    expect(facts.get('c-1199')).toEqual(expect.objectContaining({ approved: true, status: 'onGoing', version: 1, spentMicros: 0, spentDay: '' }));
  });
});
