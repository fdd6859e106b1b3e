import { DataSource } from 'typeorm';
import { CAMPAIGN_STORE, type CampaignStore } from '../../src/campaigns/campaign-store';
import { Campaign } from '../../src/campaigns/entities/campaign.entity';
import { startTestApp, TestApp } from '../support/test-app';
import { refreshIndex } from '../support/serving-helpers';
import { Body, createServable, endAllCampaigns, fetchAds, newUser } from '../support/serving-fixtures';
import { createAccount, createAdBlock, openCampaign } from '../support/factories';

/**
 * The periodic refresh of the serving index: it must pick up what change notices did not carry (a change made
 * by another process whose notice was lost, spend written by the stats pipeline) without reloading everything.
 */
describe('Serving index refresh', () => {
  let t: TestApp;
  let publisher: { apiKey: string };
  let advertiser: { apiKey: string };
  let block: string;
  let campaigns: ReturnType<DataSource['getRepository']>;

  beforeAll(async () => {
    t = await startTestApp({ INDEX_REFRESH_MS: '3600000' });
    publisher = await createAccount(t, ['publisher']);
    advertiser = await createAccount(t, ['advertiser']);
    block = await createAdBlock(t, publisher.apiKey);
    campaigns = t.app.get(DataSource).getRepository(Campaign);
  });
  afterAll(() => t.close());
  beforeEach(() => endAllCampaigns(t));

  const served = async (): Promise<Body[]> => fetchAds(t, publisher.apiKey, block, newUser('idx'), { limit: 9 });

  it('reloads a campaign whose version moved without a notice, and keeps unchanged entries', async () => {
    const changed = await createServable(t, advertiser.apiKey, openCampaign({ ad: { text: 'Old text' } }));
    const untouched = await createServable(t, advertiser.apiKey, openCampaign({ ad: { text: 'Stays' } }));
    // Another process changed it and its notice never arrived.
    await campaigns.update({ id: changed }, { text: 'New text', version: () => 'version + 1' });
    expect((await served()).find((ad) => ad.campaignId === changed)?.text).toBe('Old text');

    await refreshIndex(t);
    const ads = await served();
    expect(ads.find((ad) => ad.campaignId === changed)?.text).toBe('New text');
    expect(ads.find((ad) => ad.campaignId === untouched)?.text).toBe('Stays');
  });

  it('reads the counters in pages in id order: every servable campaign once, a paused or ended one never', async () => {
    const servable = await Promise.all(Array.from({ length: 7 }, () => createServable(t, advertiser.apiKey, openCampaign())));
    const paused = await createServable(t, advertiser.apiKey, openCampaign());
    await campaigns.update({ id: paused }, { status: 'paused', version: () => 'version + 1' });
    const store = t.app.get<CampaignStore>(CAMPAIGN_STORE, { strict: false });
    const pages: string[][] = [];
    for (let afterId: string | null = null; pages.length < 10;) {
      const page = await store.servableCountersPage(Date.now(), afterId, 3);
      pages.push(page.map((row) => row.id));
      if (page.length < 3) break;
      afterId = page[page.length - 1].id;
    }
    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual([...servable].sort());
    // and the refresh that reads them so keeps serving all seven
    await refreshIndex(t);
    expect(new Set((await served()).map((ad) => ad.campaignId))).toEqual(new Set(servable));
  });

  it('drops a campaign whose spend the database shows at its budget, and one paused behind its back', async () => {
    const spent = await createServable(t, advertiser.apiKey, openCampaign({ budget: { amount: 1, total: 1 } }));
    const paused = await createServable(t, advertiser.apiKey, openCampaign());
    const live = await createServable(t, advertiser.apiKey, openCampaign());
    await campaigns.update({ id: spent }, { spentMicros: 1_000_000 });
    await campaigns.update({ id: paused }, { status: 'paused', version: () => 'version + 1' });

    await refreshIndex(t);
    expect((await served()).map((ad) => ad.campaignId)).toEqual([live]);
  });

  it('re-ranks CPC campaigns by the click-through rate the database holds now', async () => {
    const low = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPC', costPer: 0.2 } }));
    const high = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPC', costPer: 0.1 } }));
    expect((await served()).map((ad) => ad.campaignId)).toEqual([low, high]);

    // The cheaper bid earns more per impression once its CTR is far better: 0.1 × 51/200 > 0.2 × 1/200.
    await campaigns.update({ id: high }, { clicks: 50, impressions: 100 });
    await campaigns.update({ id: low }, { clicks: 0, impressions: 100 });
    await refreshIndex(t);
    expect((await served()).map((ad) => ad.campaignId)).toEqual([high, low]);
  });
});
