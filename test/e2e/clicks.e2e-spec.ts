import { ManualClock } from '../../src/common/clock';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CLICK, flushStats, refreshIndex } from '../support/serving-helpers';
import {
  BLOCK_BASE,
  BLOCK_NOT_FOUND,
  blockDetail,
  Body,
  CAMPAIGN_BASE,
  clickAd,
  clickRaw,
  createServable,
  DAY,
  endAllCampaigns,
  expectValidationError,
  fetchAds,
  fetchIds,
  flushedCampaign,
  HOUR,
  MINUTE,
  newUser,
  setStatus,
  UNKNOWN_ID,
} from '../support/serving-fixtures';
import { createAccount, createAdBlock, openCampaign, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const COUNTED = { code: 0, message: 'success', data: { status: 'success', msg: 'click counted' } };
const UNBILLED = { code: 0, message: 'success', data: { status: 'success', msg: 'click recorded, not billed: the campaign is not billable now' } };
const CAMPAIGN_NOT_FOUND = {
  code: 404,
  message: 'campaignId: campaign not found',
  data: { errors: [{ field: 'campaignId', message: 'campaign not found' }] },
};
const micros = (usdt: number) => Math.round(usdt * 1_000_000);

describe('Clicks (endpoint 6) and stats', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let publisher: Account;
  let otherPublisher: Account;
  let advertiser: Account;
  let otherAdvertiser: Account;
  let block: string;
  let otherBlock: string;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' }, { clock });
    ({ publisher, otherPublisher, advertiser, otherAdvertiser } = await createAccounts(t, {
      publisher: ['publisher', 'Publisher P'],
      otherPublisher: ['publisher', 'Publisher Q'],
      advertiser: ['advertiser', 'Advertiser A'],
      otherAdvertiser: ['advertiser', 'Advertiser B'],
    }));
    block = await createAdBlock(t, publisher.apiKey, 'Main block');
    otherBlock = await createAdBlock(t, otherPublisher.apiKey, 'Other block');
  });
  afterAll(() => t.close());

  const http = () => t.http();
  const create = (body: object, key = advertiser.apiKey) => createServable(t, key, body);
  /** Fetches for `user` on `adBlockId` and answers the ad of `campaignId` (which must be served). */
  const serve = async (campaignId: string, user: string, adBlockId = block, key = publisher.apiKey): Promise<Body> => {
    const ads = await fetchAds(t, key, adBlockId, user, { limit: 9 });
    const ad = ads.find((a) => a.campaignId === campaignId);
    if (!ad) throw new Error(`campaign ${campaignId} not served to ${user}: ${JSON.stringify(ads.map((a) => a.campaignId))}`);
    return ad;
  };
  const counters = async (campaignId: string, adBlockId = block) => {
    const campaign = await flushedCampaign(t, campaignId);
    const adBlock = await blockDetail(t, ADMIN_KEY, adBlockId);
    return {
      campaign: { impressions: campaign.impressions, clicks: campaign.clicks, cost: campaign.cost },
      block: { impressions: adBlock.impressions, clicks: adBlock.clicks, earnings: adBlock.earnings },
    };
  };
  const expectNoImpression = (response: { status: number; body: Body }) => {
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(400);
    expect(response.body.message).toBe('no matching impression');
  };

  describe('validation and access', () => {
    const valid = (): Body => ({
      eventType: 'click',
      eventData: { adBlockId: block, messengerUserId: 'user-1', adId: 'ad_x', campaignId: UNKNOWN_ID },
    });
    const cases: [string, string, (body: Body) => void][] = [
      ['eventType missing', 'eventType', (b) => delete b.eventType],
      ['eventType view', 'eventType', (b) => (b.eventType = 'view')],
      ['eventType 1', 'eventType', (b) => (b.eventType = 1)],
      ['eventData missing', 'eventData', (b) => delete b.eventData],
      ['eventData null', 'eventData', (b) => (b.eventData = null)],
      ['eventData a string', 'eventData', (b) => (b.eventData = 'click')],
      ['eventData a number', 'eventData', (b) => (b.eventData = 7)],
      ['eventData an array', 'eventData', (b) => (b.eventData = [])],
    ];
    for (const field of ['adBlockId', 'messengerUserId', 'adId', 'campaignId']) {
      cases.push(
        [`eventData.${field} missing`, `eventData.${field}`, (b) => delete b.eventData[field]],
        [`eventData.${field} empty`, `eventData.${field}`, (b) => (b.eventData[field] = '')],
        [`eventData.${field} a number`, `eventData.${field}`, (b) => (b.eventData[field] = 12345)],
        [`eventData.${field} null`, `eventData.${field}`, (b) => (b.eventData[field] = null)],
        [`eventData.${field} an object`, `eventData.${field}`, (b) => (b.eventData[field] = { id: 'x' })],
      );
    }

    it.each(cases)('should answer 400 naming the field for %s', async (_case, field, mutate) => {
      const body = valid();
      mutate(body);
      const response = await http().post(CLICK).set('x-api-key', publisher.apiKey).send(body);
      expectValidationError(response, field);
    });

    it('should answer 401 without or with an unknown key, and 403 for advertiser and partner keys (before 400)', async () => {
      const missing = await http().post(CLICK).send(valid());
      expect([missing.status, missing.body.code]).toEqual([401, 401]);
      const unknown = await http().post(CLICK).set('x-api-key', 'not-a-real-key-0123456789abcdef').send(valid());
      expect([unknown.status, unknown.body.code]).toEqual([401, 401]);
      const partner = await createAccount(t, ['partner'], 'Partner');
      for (const key of [advertiser.apiKey, partner.apiKey]) {
        for (const body of [valid(), {}]) {
          const response = await http().post(CLICK).set('x-api-key', key).send(body);
          expect([response.status, response.body.code]).toEqual([403, 403]);
        }
      }
    });

    it("should answer an unknown block and another publisher's block with the identical 404", async () => {
      await endAllCampaigns(t);
      const campaignId = await create(openCampaign());
      const user = newUser();
      const ad = await serve(campaignId, user, otherBlock, otherPublisher.apiKey);
      const foreign = await clickAd(t, publisher.apiKey, ad, user);
      const unknown = await clickRaw(t, publisher.apiKey, { ...ad, adBlockId: UNKNOWN_ID, messengerUserId: user });
      expect(foreign.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(foreign.body).toEqual(BLOCK_NOT_FOUND);
      expect(unknown.body).toEqual(BLOCK_NOT_FOUND);
      const after = await counters(campaignId, otherBlock);
      expect(after.campaign.clicks).toBe(0);
      expect(after.block.clicks).toBe(0);
    });
  });

  describe('clicks without a matching impression', () => {
    let cpc: string;
    let cpm: string;
    let secondBlock: string;
    beforeAll(async () => {
      await endAllCampaigns(t);
      secondBlock = await createAdBlock(t, publisher.apiKey, 'Second block');
      cpc = await create(openCampaign({ name: 'cpc', bidding: { billingType: 'CPC', costPer: 0.5 } }));
      cpm = await create(openCampaign({ name: 'cpm', bidding: { billingType: 'CPM', costPer: 2 } }));
    });
    afterEach(async () => {
      const after = await counters(cpc, block);
      expect(after.campaign.clicks).toBe(0);
      expect(after.campaign.cost).toBe(0);
      expect(after.block.clicks).toBe(0);
      expect((await blockDetail(t, publisher.apiKey, secondBlock)).clicks).toBe(0);
      expect((await flushedCampaign(t, cpm)).clicks).toBe(0);
    });

    it('should refuse a click on an ad never served to that user on that block', async () => {
      const response = await clickRaw(t, publisher.apiKey, {
        adBlockId: block,
        messengerUserId: newUser(),
        adId: (await serve(cpc, newUser())).adId,
        campaignId: cpc,
      });
      expectNoImpression(response);
      expect(response.body.data).toEqual({ errors: [expect.objectContaining({ message: 'no matching impression' })] });
    });

    it('should refuse a click by another user than the one the ad was served to', async () => {
      const ad = await serve(cpc, newUser());
      expectNoImpression(await clickAd(t, publisher.apiKey, ad, newUser()));
    });

    it('should refuse a click reported on another block than the one the ad was served on', async () => {
      const user = newUser();
      const ad = await serve(cpc, user, block);
      expectNoImpression(await clickRaw(t, publisher.apiKey, { ...ad, adBlockId: secondBlock, messengerUserId: user }));
    });

    it('should refuse a click whose adId does not belong to its campaignId', async () => {
      const user = newUser();
      const cpcAd = await serve(cpc, user);
      const cpmAd = await serve(cpm, user);
      expectNoImpression(await clickRaw(t, publisher.apiKey, { ...cpmAd, adId: cpcAd.adId, messengerUserId: user }));
      expectNoImpression(await clickRaw(t, publisher.apiKey, { ...cpcAd, adId: cpmAd.adId, messengerUserId: user }));
      expectNoImpression(await clickRaw(t, publisher.apiKey, { ...cpcAd, adId: 'ad_unknown', messengerUserId: user }));
      expectNoImpression(await clickRaw(t, publisher.apiKey, { ...cpcAd, campaignId: UNKNOWN_ID, messengerUserId: user }));
    });
  });

  describe('counted clicks', () => {
    beforeEach(() => endAllCampaigns(t));

    it('should count a CPC click, bill costPer exactly and credit the publisher its floored share', async () => {
      const campaignId = await create(openCampaign({ bidding: { billingType: 'CPC', costPer: 0.123457 } }));
      const clickBlock = await createAdBlock(t, publisher.apiKey, 'cpc block');
      const user = newUser();
      const ad = await serve(campaignId, user, clickBlock);
      const response = await clickAd(t, publisher.apiKey, ad, user);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(COUNTED);

      // durable before the answer: visible without a stats flush
      const campaign = await http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId }).set('x-api-key', advertiser.apiKey);
      expect(campaign.body.data).toEqual(expect.objectContaining({ clicks: 1, cost: 0.123457, spentToday: 0.123457 }));
      // the list row carries the budget and both spends too (the panel's budget bars read no detail per row)
      const list = await http().get(`${CAMPAIGN_BASE}/list`).query({ pageSize: 100 }).set('x-api-key', advertiser.apiKey).expect(200);
      const row = list.body.data.campaigns.find((item: { id: string }) => item.id === campaignId);
      expect(row).toEqual(expect.objectContaining({ clicks: 1, cost: 0.123457, spentToday: 0.123457, budget: campaign.body.data.budget }));
      expect(await counters(campaignId, clickBlock)).toEqual({
        campaign: { impressions: 1, clicks: 1, cost: 0.123457 },
        // floor(123457 x 0.7) = 86419 micro-USDT
        block: { impressions: 1, clicks: 1, earnings: 0.086419 },
      });
    });

    it('should count a click on a CPM ad without billing it', async () => {
      const campaignId = await create(openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }));
      const clickBlock = await createAdBlock(t, publisher.apiKey, 'cpm block');
      const user = newUser();
      const ad = await serve(campaignId, user, clickBlock);
      expect((await clickAd(t, publisher.apiKey, ad, user)).body).toEqual(COUNTED);
      expect(await counters(campaignId, clickBlock)).toEqual({
        campaign: { impressions: 1, clicks: 1, cost: 0.002 },
        block: { impressions: 1, clicks: 1, earnings: 0.0014 },
      });
      const detail = await flushedCampaign(t, campaignId);
      expect(detail.ctr).toBe(1);
    });

    it("should answer a repeat at any time of the impression's 24 hours with success, without counting or billing it", async () => {
      const campaignId = await create(openCampaign({ bidding: { billingType: 'CPC', costPer: 0.3 } }));
      const user = newUser();
      const ad = await serve(campaignId, user);
      expect((await clickAd(t, publisher.apiKey, ad, user)).body).toEqual(COUNTED);
      const once = await counters(campaignId);

      // 0, 5 min, 11 min, 23 h after the counted click
      for (const step of [0, 5 * MINUTE, 6 * MINUTE, 23 * HOUR - 11 * MINUTE]) {
        clock.advance(step);
        const repeat = await clickAd(t, publisher.apiKey, ad, user);
        expect(repeat.status).toBe(200);
        expect(repeat.body).toEqual({ code: 0, message: 'success', data: { status: 'success', msg: expect.any(String) } });
        expect(repeat.body.data.msg).not.toBe('click counted');
        expect(await counters(campaignId)).toEqual(once);
      }
      expect(once.campaign).toEqual({ impressions: 1, clicks: 1, cost: 0.3 });
    });

    it('should bind clicks to an impression of the last 24 hours only', async () => {
      const campaignId = await create(openCampaign({ bidding: { billingType: 'CPC', costPer: 0.2 } }, clock.now()), advertiser.apiKey);
      const user = newUser();
      const ad = await serve(campaignId, user);
      clock.advance(24 * HOUR - MINUTE);
      expect((await clickAd(t, publisher.apiKey, ad, user)).body).toEqual(COUNTED);
      clock.advance(MINUTE);
      expectNoImpression(await clickAd(t, publisher.apiKey, ad, user));
      expect((await counters(campaignId)).campaign).toEqual({ impressions: 1, clicks: 1, cost: 0.2 });

      // a new impression makes it clickable again
      clock.advance(10 * MINUTE);
      const again = await serve(campaignId, user);
      expect((await clickAd(t, publisher.apiKey, again, user)).body).toEqual(COUNTED);
      expect((await counters(campaignId)).campaign).toEqual({ impressions: 2, clicks: 2, cost: 0.4 });

      // first impression on day D; the click 23 h 59 min later, the second impression and its click on day D+1
      const series = await http()
        .get(`${CAMPAIGN_BASE}/stats`)
        .query({ campaignId, from: clock.now() - 3 * DAY, to: clock.now() + HOUR, granularity: 'day' })
        .set('x-api-key', advertiser.apiKey)
        .expect(200);
      const active = (series.body.data.series as Body[]).filter((point) => point.impressions + point.clicks > 0);
      expect(active.map(({ impressions, clicks, cost }) => ({ impressions, clicks, cost }))).toEqual([
        { impressions: 1, clicks: 0, cost: 0 },
        { impressions: 1, clicks: 2, cost: 0.4 },
      ]);
    });

    it('should record unbilled, not count nor bill, a click on an ad served before its campaign was paused or ended', async () => {
      const paused = await create(openCampaign({ name: 'to pause', bidding: { billingType: 'CPC', costPer: 0.25 } }));
      const ended = await create(openCampaign({ name: 'to end', bidding: { billingType: 'CPC', costPer: 0.15 } }));
      const user = newUser();
      const pausedAd = await serve(paused, user);
      const endedAd = await serve(ended, user);
      await setStatus(t, advertiser.apiKey, paused, 'paused');
      await setStatus(t, advertiser.apiKey, ended, 'end');
      await refreshIndex(t);
      expect((await clickAd(t, publisher.apiKey, pausedAd, user)).body).toEqual(UNBILLED);
      expect((await clickAd(t, publisher.apiKey, endedAd, user)).body).toEqual(UNBILLED);
      for (const campaignId of [paused, ended]) {
        expect(await flushedCampaign(t, campaignId)).toEqual(expect.objectContaining({ clicks: 0, unbilledClicks: 1, invalidClicks: 0, cost: 0 }));
      }
    });

    it('should answer success for clicks on test ads without counting them', async () => {
      const campaignId = await create(openCampaign());
      const testBlock = await createAdBlock(t, publisher.apiKey, 'debug block');
      const user = newUser();
      const ads = await fetchAds(t, publisher.apiKey, testBlock, user, { limit: 3, debug: 'true' });
      expect(ads).toHaveLength(3);
      for (const ad of ads) {
        for (let i = 0; i < 2; i++) {
          const response = await clickAd(t, publisher.apiKey, ad, user);
          expect(response.status).toBe(200);
          expect(response.body).toEqual({ code: 0, message: 'success', data: { status: 'success', msg: expect.any(String) } });
          expect(response.body.data.msg).not.toBe('click counted');
        }
      }
      await flushStats(t);
      expect(await blockDetail(t, publisher.apiKey, testBlock)).toEqual(expect.objectContaining({ impressions: 0, clicks: 0, earnings: 0 }));
      expect(await counters(campaignId, testBlock)).toEqual({
        campaign: { impressions: 0, clicks: 0, cost: 0 },
        block: { impressions: 0, clicks: 0, earnings: 0 },
      });
    });
  });

  describe('rule 6: no re-serving of a clicked ad to that user for 10 minutes', () => {
    beforeEach(() => endAllCampaigns(t));

    it('should hide the clicked ad from that user only, for 10 minutes (production)', async () => {
      const clicked = await create(openCampaign({ name: 'clicked', bidding: { billingType: 'CPC', costPer: 0.5 } }));
      const other = await create(openCampaign({ name: 'other', bidding: { billingType: 'CPM', costPer: 1 } }));
      const user = newUser();
      const ad = await serve(clicked, user);
      expect((await clickAd(t, publisher.apiKey, ad, user)).body).toEqual(COUNTED);

      expect(await fetchIds(t, publisher.apiKey, block, user)).toEqual([other]);
      expect((await fetchIds(t, publisher.apiKey, block, newUser())).sort()).toEqual([clicked, other].sort());
      // also on the publisher's other blocks
      const secondBlock = await createAdBlock(t, publisher.apiKey, 'rule 6 second');
      expect(await fetchIds(t, publisher.apiKey, secondBlock, user)).toEqual([other]);

      // The manual clock also follows real time, so "just before" keeps a margin of a few seconds.
      clock.advance(10 * MINUTE - 5000);
      expect(await fetchIds(t, publisher.apiKey, block, user)).toEqual([other]);
      clock.advance(5000);
      expect((await fetchIds(t, publisher.apiKey, block, user)).sort()).toEqual([clicked, other].sort());
    });

    it('should keep the exclusion on a repeated click that is not counted', async () => {
      const campaignId = await create(openCampaign({ bidding: { billingType: 'CPC', costPer: 0.5 } }));
      const user = newUser();
      const ad = await serve(campaignId, user);
      expect((await clickAd(t, publisher.apiKey, ad, user)).body).toEqual(COUNTED);
      expect((await clickAd(t, publisher.apiKey, ad, user)).status).toBe(200);
      expect(await fetchIds(t, publisher.apiKey, block, user)).toEqual([]);
    });

    it("should serve the user's next best ads when the top ones are excluded", async () => {
      const ids: string[] = [];
      for (const costPer of [9, 8, 7, 6, 5]) ids.push(await create(openCampaign({ bidding: { billingType: 'CPM', costPer } })));
      const user = newUser();
      const ads = await fetchAds(t, publisher.apiKey, block, user, { limit: 9 });
      expect(ads.map((ad) => ad.campaignId)).toEqual(ids);
      for (const ad of ads.slice(0, 4)) expect((await clickAd(t, publisher.apiKey, ad, user)).body).toEqual(COUNTED);
      expect(await fetchIds(t, publisher.apiKey, block, user, { limit: 9 })).toEqual([ids[4]]);
      // Four excluded ads must not hide the fifth from a request for one ad.
      expect(await fetchIds(t, publisher.apiKey, block, user, { limit: 1 })).toEqual([ids[4]]);
      expect(await fetchIds(t, publisher.apiKey, block, user, { limit: 2 })).toEqual([ids[4]]);
    });
  });

  describe('CPC budget', () => {
    beforeEach(() => endAllCampaigns(t));

    it('should bill clicks while spend is below the total, passing it by less than one unit price, then record them unbilled', async () => {
      const campaignId = await create(openCampaign({ budget: { amount: 1, total: 1 }, bidding: { billingType: 'CPC', costPer: 0.4 } }));
      const budgetBlock = await createAdBlock(t, publisher.apiKey, 'budget block');
      const users = Array.from({ length: 5 }, () => newUser('cpc'));
      const ads = [];
      for (const user of users) ads.push(await serve(campaignId, user, budgetBlock));

      const costs: number[] = [];
      for (let i = 0; i < users.length; i++) {
        expect((await clickAd(t, publisher.apiKey, ads[i], users[i])).body).toEqual(i < 3 ? COUNTED : UNBILLED);
        costs.push((await flushedCampaign(t, campaignId)).cost);
      }
      expect(costs).toEqual([0.4, 0.8, 1.2, 1.2, 1.2]);
      const detail = await flushedCampaign(t, campaignId);
      expect(detail).toEqual(expect.objectContaining({ impressions: 5, clicks: 3, unbilledClicks: 2, cost: 1.2, deliveryStatus: 'budgetSpent' }));
      expect(detail.cost).toBeLessThan(1 + 0.4);
      // 3 x floor(400000 x 0.7) micro-USDT
      expect(await blockDetail(t, publisher.apiKey, budgetBlock)).toEqual(
        expect.objectContaining({ impressions: 5, clicks: 3, unbilledClicks: 2, earnings: 0.84 }),
      );
      // spent: no longer served
      expect(await fetchIds(t, publisher.apiKey, budgetBlock, newUser())).toEqual([]);
    });
  });

  describe('CPC daily budget', () => {
    beforeEach(() => endAllCampaigns(t));

    it('should bill clicks while the day spend is below the daily amount, then record them unbilled', async () => {
      const campaignId = await create(openCampaign({ budget: { amount: 0.5, total: 10 }, bidding: { billingType: 'CPC', costPer: 0.4 } }, clock.now()));
      const users = Array.from({ length: 3 }, () => newUser('daily'));
      const ads = [];
      for (const user of users) ads.push(await serve(campaignId, user));
      const costs: number[] = [];
      for (let i = 0; i < users.length; i++) {
        expect((await clickAd(t, publisher.apiKey, ads[i], users[i])).body).toEqual(i < 2 ? COUNTED : UNBILLED);
        costs.push((await flushedCampaign(t, campaignId)).cost);
      }
      expect(costs).toEqual([0.4, 0.8, 0.8]);
      expect(await flushedCampaign(t, campaignId)).toEqual(expect.objectContaining({ clicks: 2, unbilledClicks: 1, cost: 0.8 }));
    });
  });

  describe('stats reconcile', () => {
    let campaignA: string; // CPM 1.234
    let campaignB: string; // CPC 0.123457
    let blockX: string;
    let blockY: string;
    let owner: Account;
    let pub: Account;

    beforeAll(async () => {
      await endAllCampaigns(t);
      owner = await createAccount(t, ['advertiser'], 'Stats advertiser');
      pub = await createAccount(t, ['publisher'], 'Stats publisher');
      blockX = await createAdBlock(t, pub.apiKey, 'X');
      blockY = await createAdBlock(t, pub.apiKey, 'Y');
      campaignA = await create(openCampaign({ name: 'A', bidding: { billingType: 'CPM', costPer: 1.234 } }, clock.now()), owner.apiKey);
      campaignB = await create(openCampaign({ name: 'B', bidding: { billingType: 'CPC', costPer: 0.123457 } }, clock.now()), owner.apiKey);

      const served: Record<string, Body[]> = {};
      for (const [user, adBlockId] of [
        ['s1', blockX],
        ['s2', blockX],
        ['s3', blockX],
        ['s4', blockY],
        ['s5', blockY],
      ]) {
        const ads = await fetchAds(t, pub.apiKey, adBlockId, user, { limit: 2 });
        expect(ads.map((ad) => ad.campaignId).sort()).toEqual([campaignA, campaignB].sort());
        served[user] = ads;
      }
      const adOf = (user: string, campaignId: string) => served[user].find((ad) => ad.campaignId === campaignId)!;
      for (const [user, campaignId] of [
        ['s1', campaignA],
        ['s1', campaignB],
        ['s4', campaignB],
      ]) {
        expect((await clickAd(t, pub.apiKey, adOf(user, campaignId), user)).body).toEqual(COUNTED);
      }
      await flushStats(t);
    });

    const expected = () => ({
      A: { impressions: 5, clicks: 1, conversions: 0, cost: 0.00617, ctr: 0.2, cr: 0 },
      B: { impressions: 5, clicks: 2, conversions: 0, cost: 0.246914, ctr: 0.4, cr: 0 },
      // earnings: 3 x floor(1234 x 0.7) + floor(123457 x 0.7) = 3 x 863 + 86419
      X: { impressions: 6, clicks: 2, ctr: 2 / 6, earnings: 0.089008 },
      // 2 x 863 + 86419
      Y: { impressions: 4, clicks: 1, ctr: 0.25, earnings: 0.088145 },
    });
    const pick = (item: Body, keys: string[]) => Object.fromEntries(keys.map((key) => [key, item[key]]));
    const CAMPAIGN_KEYS = ['impressions', 'clicks', 'conversions', 'cost', 'ctr', 'cr'];
    const BLOCK_KEYS = ['impressions', 'clicks', 'ctr', 'earnings'];

    it('should answer the exact totals in campaign list items and detail', async () => {
      const list = await http().get(`${CAMPAIGN_BASE}/list`).set('x-api-key', owner.apiKey).expect(200);
      const items = list.body.data.campaigns as Body[];
      const byId = Object.fromEntries(items.map((item) => [item.id, item]));
      expect(pick(byId[campaignA], CAMPAIGN_KEYS)).toEqual(expected().A);
      expect(pick(byId[campaignB], CAMPAIGN_KEYS)).toEqual(expected().B);
      for (const [id, want] of [
        [campaignA, expected().A],
        [campaignB, expected().B],
      ] as const) {
        const detail = await http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId: id }).set('x-api-key', owner.apiKey).expect(200);
        expect(pick(detail.body.data, CAMPAIGN_KEYS)).toEqual(want);
      }
    });

    it('should answer the exact totals and floored earnings in block list and detail', async () => {
      expect(pick(await blockDetail(t, pub.apiKey, blockX), BLOCK_KEYS)).toEqual(expected().X);
      expect(pick(await blockDetail(t, pub.apiKey, blockY), BLOCK_KEYS)).toEqual(expected().Y);
      const list = await http().get(`${BLOCK_BASE}/list`).set('x-api-key', pub.apiKey).expect(200);
      const byId = Object.fromEntries((list.body.data.adBlocks as Body[]).map((item) => [item.adBlockId, item]));
      expect(pick(byId[blockX], BLOCK_KEYS)).toEqual(expected().X);
      expect(pick(byId[blockY], BLOCK_KEYS)).toEqual(expected().Y);
    });

    const sumSeries = (series: Body[], money: 'cost' | 'earnings') => ({
      impressions: series.reduce((sum, p) => sum + p.impressions, 0),
      clicks: series.reduce((sum, p) => sum + p.clicks, 0),
      conversions: series.reduce((sum, p) => sum + p.conversions, 0),
      [money]: series.reduce((sum, p) => sum + micros(p[money]), 0) / 1_000_000,
    });
    const campaignSeries = (campaignId: string, query: Record<string, string | number>, key = owner.apiKey) =>
      http()
        .get(`${CAMPAIGN_BASE}/stats`)
        .query({ campaignId, ...query })
        .set('x-api-key', key);
    const blockSeries = (adBlockId: string, query: Record<string, string | number>, key = pub.apiKey) =>
      http()
        .get(`${BLOCK_BASE}/stats`)
        .query({ adBlockId, ...query })
        .set('x-api-key', key);

    it.each(['hour', 'day'])('should answer %s series whose sums equal the campaign totals', async (granularity) => {
      const bucket = granularity === 'hour' ? HOUR : DAY;
      const to = clock.now() + HOUR;
      const from = clock.now() - 2 * DAY;
      for (const [id, want] of [
        [campaignA, expected().A],
        [campaignB, expected().B],
      ] as const) {
        const response = await campaignSeries(id, { from, to, granularity });
        expect(response.status).toBe(200);
        expect(response.body.code).toBe(0);
        const series = response.body.data.series as Body[];
        expect(series.length).toBe(Math.ceil((to - (from - (from % bucket))) / bucket));
        series.forEach((point, i) => {
          expect(Object.keys(point).sort()).toEqual([
            'clicks',
            'completions',
            'conversions',
            'cost',
            'events',
            'impressions',
            'invalidClicks',
            'invalidImpressions',
            'time',
            'unbilledClicks',
            'verifiedClicks',
            'views',
          ]);
          expect(point.time % bucket).toBe(0);
          if (i > 0) expect(point.time - series[i - 1].time).toBe(bucket);
        });
        expect(sumSeries(series, 'cost')).toEqual({ impressions: want.impressions, clicks: want.clicks, conversions: 0, cost: want.cost });
      }
      for (const [id, want] of [
        [blockX, expected().X],
        [blockY, expected().Y],
      ] as const) {
        const response = await blockSeries(id, { from, to, granularity });
        expect(response.status).toBe(200);
        const series = response.body.data.series as Body[];
        expect(Object.keys(series[0]).sort()).toEqual([
          'clicks',
          'completions',
          'conversions',
          'earnings',
          'impressions',
          'invalidClicks',
          'invalidImpressions',
          'rewardsCapped',
          'time',
          'unbilledClicks',
          'views',
        ]);
        expect(sumSeries(series, 'earnings')).toEqual({
          impressions: want.impressions,
          clicks: want.clicks,
          conversions: 0,
          earnings: want.earnings,
        });
      }
    });

    it('should default to the last 7 days, daily, ending now', async () => {
      const dayStart = (at: number) => at - (at % DAY);
      const before = dayStart(clock.now());
      const campaign = await campaignSeries(campaignA, {});
      const after = dayStart(clock.now());
      expect(campaign.status).toBe(200);
      const series = campaign.body.data.series as Body[];
      for (const point of series) expect(point.time % DAY).toBe(0);
      // The manual clock follows real time: the request may straddle midnight.
      expect([before, after]).toContain(series[series.length - 1].time);
      expect(sumSeries(series, 'cost')).toEqual(expect.objectContaining({ impressions: 5, clicks: 1, cost: 0.00617 }));
      const adBlock = await blockSeries(blockY, {});
      expect(sumSeries(adBlock.body.data.series, 'earnings')).toEqual(expect.objectContaining({ impressions: 4, clicks: 1, earnings: 0.088145 }));
    });

    it('should answer zero buckets outside the activity', async () => {
      const to = clock.now() - 3 * DAY;
      const response = await campaignSeries(campaignA, { from: to - 2 * DAY, to, granularity: 'day' });
      expect(response.status).toBe(200);
      expect(sumSeries(response.body.data.series, 'cost')).toEqual({ impressions: 0, clicks: 0, conversions: 0, cost: 0 });
    });

    it.each([
      ['granularity week', 'granularity', { granularity: 'week' }],
      ['from abc', 'from', { from: 'abc' }],
      ['to abc', 'to', { to: 'abc' }],
      ['from 1.5', 'from', { from: '1.5' }],
      ['from -1', 'from', { from: '-1' }],
      ['from equal to to', 'from', { from: '1767225600000', to: '1767225600000' }],
      ['from after to', 'from', { from: '1767225600001', to: '1767225600000' }],
      ['more than 5000 hourly buckets', 'from', { from: '0', to: '1767225600000', granularity: 'hour' }],
    ])('should answer 400 naming the field for %s, on both series', async (_case, field, query) => {
      expectValidationError(await campaignSeries(campaignA, query as Record<string, string>), field);
      expectValidationError(await blockSeries(blockX, query as Record<string, string>), field);
    });

    it('should answer 400 naming the id when it is missing', async () => {
      expectValidationError(await http().get(`${CAMPAIGN_BASE}/stats`).set('x-api-key', owner.apiKey), 'campaignId');
      expectValidationError(await http().get(`${BLOCK_BASE}/stats`).set('x-api-key', pub.apiKey), 'adBlockId');
    });

    it("should answer another owner's campaign or block series exactly like an unknown id (404)", async () => {
      const foreignCampaign = await campaignSeries(campaignA, {}, otherAdvertiser.apiKey);
      const unknownCampaign = await campaignSeries(UNKNOWN_ID, {}, otherAdvertiser.apiKey);
      expect([foreignCampaign.status, unknownCampaign.status]).toEqual([404, 404]);
      expect(foreignCampaign.body).toEqual(CAMPAIGN_NOT_FOUND);
      expect(unknownCampaign.body).toEqual(CAMPAIGN_NOT_FOUND);

      const foreignBlock = await blockSeries(blockX, {}, otherPublisher.apiKey);
      const unknownBlock = await blockSeries(UNKNOWN_ID, {}, otherPublisher.apiKey);
      expect([foreignBlock.status, unknownBlock.status]).toEqual([404, 404]);
      expect(foreignBlock.body).toEqual(BLOCK_NOT_FOUND);
      expect(unknownBlock.body).toEqual(BLOCK_NOT_FOUND);
    });

    it('should answer 403 for the wrong role and 401 without a key', async () => {
      expect((await campaignSeries(campaignA, {}, pub.apiKey)).status).toBe(403);
      expect((await blockSeries(blockX, {}, owner.apiKey)).status).toBe(403);
      expect((await http().get(`${CAMPAIGN_BASE}/stats`).query({ campaignId: campaignA })).status).toBe(401);
      expect((await http().get(`${BLOCK_BASE}/stats`).query({ adBlockId: blockX })).status).toBe(401);
    });

    it('should let an admin read any series', async () => {
      const response = await campaignSeries(campaignB, {}, ADMIN_KEY);
      expect(response.status).toBe(200);
      expect(sumSeries(response.body.data.series, 'cost')).toEqual(expect.objectContaining({ clicks: 2, cost: 0.246914 }));
    });
  });
});

// Its own application, started after the one above is closed: both profiles rebuild the schema at start, and on
// MySQL two applications would share (and wipe) one database.
describe('Rule 6 in the test environment (APP_ENV=test)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ APP_ENV: 'test', TRUST_PROXY: 'true' });
  });
  afterAll(() => t.close());

  it('should serve a clicked ad to that user again at once', async () => {
    const pub = await createAccount(t, ['publisher']);
    const adv = await createAccount(t, ['advertiser']);
    const testBlock = await createAdBlock(t, pub.apiKey);
    const campaignId = await createServable(t, adv.apiKey, openCampaign({ bidding: { billingType: 'CPC', costPer: 0.5 } }));
    const user = newUser();
    const [ad] = await fetchAds(t, pub.apiKey, testBlock, user);
    expect(ad.campaignId).toBe(campaignId);
    expect((await clickAd(t, pub.apiKey, ad, user)).body).toEqual(COUNTED);
    expect(await fetchIds(t, pub.apiKey, testBlock, user)).toEqual([campaignId]);
    // that serve is a new impression, with one click of its own
    expect((await clickAd(t, pub.apiKey, ad, user)).body).toEqual(COUNTED);
    expect((await clickAd(t, pub.apiKey, ad, user)).body.data.msg).toBe('duplicate click: not counted again');
    expect((await flushedCampaign(t, campaignId)).clicks).toBe(2);
  });
});
