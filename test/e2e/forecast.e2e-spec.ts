import { ForecastSampler } from '../../src/forecast/forecast-sampler';
import { IP } from '../support/serving-helpers';
import { CAMPAIGN_BASE, createServable, expectValidationError, fetchAds, newUser } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAdBlock, openCampaign, createAccounts } from '../support/factories';

const FORECAST = `${CAMPAIGN_BASE}/forecast`;
/** Seeded requests per country; the sample covers minutes, so it counts as an hour: a day is 24 of it. */
const PER_COUNTRY = 12;
const DAILY_PER_COUNTRY = PER_COUNTRY * 24;

describe('Campaign forecast (POST ad/campaign/forecast)', () => {
  let t: TestApp;
  let advertiser: { accountId: string; apiKey: string };
  let rival: { accountId: string; apiKey: string };
  let publisher: { accountId: string; apiKey: string };
  let adBlockId: string;

  beforeAll(async () => {
    t = await startTestApp({ FORECAST_SAMPLE_RATE: '1', TRUST_PROXY: 'true' });
    ({ advertiser, rival, publisher } = await createAccounts(t, {
      advertiser: 'advertiser',
      rival: 'advertiser',
      publisher: 'publisher',
    }));
    adBlockId = await createAdBlock(t, publisher.apiKey);
  });
  afterAll(() => t.close());

  const forecast = async (body: object, apiKey = advertiser.apiKey) => {
    const response = await t.http().post(FORECAST).set('x-api-key', apiKey).send(body);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: 'success', data: expect.any(Object) });
    return response.body.data;
  };
  const campaignTotal = async () => (await t.http().get(`${CAMPAIGN_BASE}/list`).set('x-api-key', ADMIN_KEY).expect(200)).body.data.total;
  const untargeted = (overrides: Parameters<typeof openCampaign>[0] = {}) => openCampaign({ bidding: { billingType: 'CPM', costPer: 2.5 }, ...overrides });

  it('should say inventory, and forecast nothing, before any request was sampled', async () => {
    expect(await forecast(untargeted())).toEqual({
      dailyRequests: 0,
      dailyImpressions: 0,
      dailyClicks: 0,
      dailySpend: 0,
      daysToSpendTotal: null,
      limitedBy: 'inventory',
    });
  });

  it('should replay the sampled requests: a day of them, what the targeting matches, priced at the bid', async () => {
    for (const ip of [IP.US, IP.GB, IP.DE]) {
      for (let i = 0; i < PER_COUNTRY; i++) await fetchAds(t, publisher.apiKey, adBlockId, newUser(), { ip, limit: 1, lang: 'en' });
    }
    // invalid traffic is not sampled
    await fetchAds(t, publisher.apiKey, adBlockId, newUser(), { ip: IP.US, ua: 'curl/8.4.0', limit: 1 });
    await t.app.get(ForecastSampler).flush();

    const all = await forecast(untargeted());
    const daily = 3 * DAILY_PER_COUNTRY;
    expect(all).toEqual({
      dailyRequests: daily,
      dailyImpressions: daily,
      dailyClicks: Math.round(daily / 100),
      dailySpend: (daily * 2.5) / 1000,
      daysToSpendTotal: Math.ceil(1000 / ((daily * 2.5) / 1000)),
      limitedBy: 'inventory',
    });
    // a targeting that matches a third of the traffic gets a third of it
    const usOnly = await forecast(untargeted({ targeting: { includedRegions: ['US'] } }));
    expect(usOnly).toEqual(expect.objectContaining({ dailyRequests: daily, dailyImpressions: DAILY_PER_COUNTRY }));
  });

  it('should stop at the daily budget and say budget', async () => {
    const small = await forecast(untargeted({ budget: { amount: 0.5, total: 10 } }));
    expect(small).toEqual(expect.objectContaining({ dailyImpressions: 200, dailySpend: 0.5, daysToSpendTotal: 20, limitedBy: 'budget' }));
  });

  it('should leave out the requests of a block whose floor the bid is below', async () => {
    const update = (floorCpm: number | null) =>
      t.http().post('/api/v2/openapi/ad/block/update').set('x-api-key', publisher.apiKey).send({ adBlockId, floorCpm }).expect(200);
    await update(3);
    expect(await forecast(untargeted())).toEqual(
      expect.objectContaining({ dailyRequests: 3 * DAILY_PER_COUNTRY, dailyImpressions: 0, limitedBy: 'inventory' }),
    );
    expect((await forecast(untargeted({ bidding: { billingType: 'CPM', costPer: 3 } }))).dailyImpressions).toBe(3 * DAILY_PER_COUNTRY);
    await update(null);
    expect((await forecast(untargeted())).dailyImpressions).toBe(3 * DAILY_PER_COUNTRY);
  });

  it('should say bid when live campaigns outrank it, without revealing anything of theirs', async () => {
    const rivalId = await createServable(t, rival.apiKey, untargeted({ bidding: { billingType: 'CPM', costPer: 7.25 } }));
    const outbid = await t.http().post(FORECAST).set('x-api-key', advertiser.apiKey).send(untargeted()).expect(200);
    expect(outbid.body.data).toEqual(expect.objectContaining({ dailyImpressions: 0, dailySpend: 0, daysToSpendTotal: null, limitedBy: 'bid' }));
    const text = JSON.stringify(outbid.body);
    for (const secret of [rivalId, rival.accountId, '7.25']) expect(text).not.toContain(secret);
    // outbidding it wins the requests back
    expect((await forecast(untargeted({ bidding: { billingType: 'CPM', costPer: 8 } }))).dailyImpressions).toBe(3 * DAILY_PER_COUNTRY);
  });

  it("should forecast an edit of one's own campaign without it competing with itself, and 404 another's", async () => {
    const ownBody = untargeted({ bidding: { billingType: 'CPM', costPer: 9 } });
    const ownId = await createServable(t, advertiser.apiKey, ownBody);
    // as a new campaign it ties with its live self and loses
    expect((await forecast(ownBody)).limitedBy).toBe('bid');
    expect(await forecast({ ...ownBody, campaignId: ownId })).toEqual(
      expect.objectContaining({ dailyImpressions: 3 * DAILY_PER_COUNTRY, limitedBy: 'inventory' }),
    );
    const rivalCampaign = await createServable(t, rival.apiKey, untargeted());
    const foreign = await t
      .http()
      .post(FORECAST)
      .set('x-api-key', advertiser.apiKey)
      .send({ ...ownBody, campaignId: rivalCampaign })
      .expect(404);
    expect(foreign.body.data.errors).toEqual([{ field: 'campaignId', message: 'campaign not found' }]);
  });

  it('should store nothing, and check the body as create does (400 naming the field)', async () => {
    const before = await campaignTotal();
    await forecast(untargeted());
    const missing = await t
      .http()
      .post(FORECAST)
      .set('x-api-key', advertiser.apiKey)
      .send({ ...untargeted(), name: undefined })
      .expect(400);
    expectValidationError(missing, 'name');
    const badBid = await t
      .http()
      .post(FORECAST)
      .set('x-api-key', advertiser.apiKey)
      .send(untargeted({ bidding: { billingType: 'CPM', costPer: -1 } }))
      .expect(400);
    expectValidationError(badBid, 'bidding.costPer');
    expect(await campaignTotal()).toBe(before);
  });

  it('should be for advertisers with a full key only', async () => {
    await t.http().post(FORECAST).set('x-api-key', publisher.apiKey).send(untargeted()).expect(403);
    await t.http().post(FORECAST).send(untargeted()).expect(401);
  });
});
