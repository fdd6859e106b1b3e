import { AccountsService } from '../../src/accounts/accounts.service';
import { ClicksFastLane } from '../../src/clicks/clicks.fast-lane';
import { ClicksService } from '../../src/clicks/clicks.service';
import { ServingFastLane } from '../../src/serving/serving.fast-lane';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CLICK, FETCH, flushStats, IP, refreshIndex, UA } from '../support/serving-helpers';
import { Body, createServable, endAllCampaigns, flushedCampaign, newUser } from '../support/serving-fixtures';
import { createAccount, createAdBlock, openCampaign } from '../support/factories';

type Account = { accountId: string; apiKey: string };

/**
 * The hot routes answer the plainly valid request with a cached key from their fast lanes and everything else
 * through Nest. Both ways must give the same answers and count the same: each case here is sent once through Nest
 * (the lane switched off for that request) and once through the lane, and the answers compared. The key is resolved
 * by the edge hook before the lane runs, so a key's first request may already take the lane.
 */
describe('Fast lanes of the hot routes (endpoints 5 and 6)', () => {
  let t: TestApp;
  let publisher: Account;
  let block: string;
  let campaignId: string;
  const taken: string[] = [];
  let laneOffForNext = false;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' });
    await endAllCampaigns(t);
    publisher = await createAccount(t, ['publisher'], 'Lane publisher');
    const advertiser = await createAccount(t, ['advertiser'], 'Lane advertiser');
    block = await createAdBlock(t, publisher.apiKey, 'Lane block');
    campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }));
    await refreshIndex(t);
    // Records which way each request went, without changing what the lanes do.
    for (const lane of [t.app.get(ServingFastLane), t.app.get(ClicksFastLane)]) {
      const tryHandle = lane.tryHandle.bind(lane);
      jest.spyOn(lane, 'tryHandle').mockImplementation((request, reply) => {
        const took = !laneOffForNext && tryHandle(request, reply);
        laneOffForNext = false;
        taken.push(`${lane.url}:${took ? 'lane' : 'nest'}`);
        return took;
      });
    }
  });
  afterAll(() => t.close());

  const fetch = (user: string, key = publisher.apiKey, extra: Record<string, string> = {}) =>
    t
      .http()
      .get(FETCH)
      .query({ adBlockId: block, openId: user, type: 'messenger', limit: 3 })
      .set({ 'x-api-key': key, 'x-forwarded-for': IP.US, 'user-agent': UA.iOS, ...extra });
  const click = (ad: Body, user: string, key = publisher.apiKey) =>
    t
      .http()
      .post(CLICK)
      .set('x-api-key', key)
      .send({ eventType: 'click', eventData: { adBlockId: block, messengerUserId: user, adId: ad.adId, campaignId: ad.campaignId } });
  const lastWay = () => taken[taken.length - 1];

  it('should answer an ad fetch the same way through Nest (lane switched off) and through the lane, counting both', async () => {
    const key = (await t.http().post(`/api/v2/admin/accounts/${publisher.accountId}/keys`).set('x-api-key', ADMIN_KEY).send({ label: 'second' }).expect(200))
      .body.data.apiKey;
    const [first, second] = [newUser(), newUser()];
    laneOffForNext = true;
    const viaNest = await fetch(first, key).expect(200);
    expect(lastWay()).toBe(`${FETCH}:nest`);
    const viaLane = await fetch(second, key).expect(200);
    expect(lastWay()).toBe(`${FETCH}:lane`);

    expect(viaLane.headers['content-type']).toBe(viaNest.headers['content-type']);
    expect(viaLane.headers['x-request-id']).toBeDefined();
    expect(viaLane.body).toEqual(viaNest.body);
    expect(viaLane.body).toEqual({
      code: 0,
      message: 'success',
      data: {
        msg: '1 ads',
        success: true,
        ads: [expect.objectContaining({ adBlockId: block, campaignId, adId: `ad_${campaignId}` })],
      },
    });
    // The same bytes as Nest's serializer: the lane's text parses to the object above and keeps its key order.
    expect(Object.keys(viaLane.body.data.ads[0])).toEqual(Object.keys(viaNest.body.data.ads[0]));

    const campaign = await flushedCampaign(t, campaignId);
    expect(campaign.impressions).toBe(2);
    // CPM 2 USDT: 0.002 per impression
    expect(campaign.cost).toBe(0.004);
  });

  it('should answer debug ads from the lane as Nest does', async () => {
    const viaLane = await fetch(newUser(), publisher.apiKey, { debug: 'true' }).expect(200);
    expect(lastWay()).toBe(`${FETCH}:lane`);
    expect(viaLane.body.data.msg).toBe('test ads (debug): not counted or billed');
    expect(viaLane.body.data.ads).toHaveLength(3);
    expect(viaLane.body.data.ads[0].adId).toMatch(/^test_/);
  });

  it('should hand bad input, unknown blocks and other roles to Nest, which answers the errors', async () => {
    const badLimit = await t
      .http()
      .get(FETCH)
      .query({ adBlockId: block, openId: newUser(), type: 'messenger', limit: 10 })
      .set('x-api-key', publisher.apiKey)
      .expect(400);
    expect(lastWay()).toBe(`${FETCH}:nest`);
    expect(badLimit.body.data.errors[0].field).toBe('limit');

    const unknownBlock = await t
      .http()
      .get(FETCH)
      .query({ adBlockId: '01hzzzzzzzzzzzzzzzzzzzzzzz', openId: newUser(), type: 'messenger', limit: 1 })
      .set('x-api-key', publisher.apiKey)
      .expect(404);
    expect(lastWay()).toBe(`${FETCH}:nest`);
    expect(unknownBlock.body.message).toBe('adBlockId: ad block not found');

    const advertiser = await createAccount(t, ['advertiser'], 'Not a publisher');
    // cached by a first call, still not a publisher
    await t.http().get('/api/v2/openapi/account/me').set('x-api-key', advertiser.apiKey).expect(200);
    expect(t.app.get(AccountsService).cachedPrincipal(advertiser.apiKey)?.roles).toEqual(['advertiser']);
    await fetch(newUser(), advertiser.apiKey).expect(403);
    expect(lastWay()).toBe(`${FETCH}:nest`);

    const malformed = await t.http().post(CLICK).set('x-api-key', publisher.apiKey).set('content-type', 'application/json').send('{"eventType":').expect(400);
    expect(lastWay()).toBe(`${CLICK}:nest`);
    expect(malformed.body.message).toBe('body is not valid JSON');
  });

  it('should count a click from the lane once, bill it, and answer repeats and unserved ads as Nest does', async () => {
    const user = newUser();
    const ad = (await fetch(user).expect(200)).body.data.ads[0];
    const counted = await click(ad, user).expect(200);
    expect(lastWay()).toBe(`${CLICK}:lane`);
    expect(counted.body).toEqual({ code: 0, message: 'success', data: { status: 'success', msg: 'click counted' } });
    const repeat = await click(ad, user).expect(200);
    expect(repeat.body.data.msg).toBe('duplicate click: not counted again');

    const stranger = await click(ad, newUser()).expect(400);
    expect(lastWay()).toBe(`${CLICK}:lane`);
    expect(stranger.body).toMatchObject({ code: 400, message: 'no matching impression' });

    await flushStats(t);
    const campaign = await flushedCampaign(t, campaignId);
    expect(campaign.clicks).toBe(1);
  });
});

describe('Fast lane of the ad fetch and the rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '3' });
  });
  afterAll(() => t.close());

  it("should answer 429 through Nest once the lane has used up a key's rate limit", async () => {
    const publisher = await createAccount(t, ['publisher'], 'Limited publisher');
    const block = await createAdBlock(t, publisher.apiKey, 'Limited block');
    // Whole seconds of the wall clock: start just after a boundary so the five requests share one window.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await t.http().get(FETCH).query({ adBlockId: block, openId: newUser(), type: 'messenger', limit: 1 }).set('x-api-key', publisher.apiKey);
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.body).toEqual({ code: 429, message: expect.any(String), data: { retryAfter: 1 } });
        expect(response.headers['retry-after']).toBe('1');
      }
    }
    // the block's creation above was this key's first request of an earlier second
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});

describe('Fast lane of the click and the handler deadline', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ HANDLER_TIMEOUT_MS: '400' });
  });
  afterAll(() => t.close());

  it('should answer 503 in the envelope for a stuck click, through Nest (lane switched off) and through the lane', async () => {
    const publisher = await createAccount(t, ['publisher'], 'Deadline publisher');
    const block = await createAdBlock(t, publisher.apiKey, 'Deadline block');
    const key = (await t.http().post(`/api/v2/admin/accounts/${publisher.accountId}/keys`).set('x-api-key', ADMIN_KEY).send({ label: 'fresh' }).expect(200))
      .body.data.apiKey;
    const events = t.app.get(ClicksService);
    const body = { eventType: 'click', eventData: { adBlockId: block, messengerUserId: newUser(), adId: 'ad_x', campaignId: 'x' } };
    const lane = jest.spyOn(t.app.get(ClicksFastLane), 'tryHandle').mockReturnValueOnce(false);
    const stuck = jest
      .spyOn(events, 'countClick')
      .mockImplementation(() => new Promise((resolve) => setTimeout(() => resolve({ status: 'success', msg: 'click counted' }), 2000)));
    try {
      for (const apiKey of [key, key]) {
        const started = Date.now();
        const response = await t.http().post(CLICK).set('x-api-key', apiKey).send(body).expect(503);
        expect(Date.now() - started).toBeLessThan(1500);
        expect(response.body).toEqual({ code: 503, message: 'request timed out; retry later', data: {} });
      }
      // the first went through Nest (the lane declined it), the second through the lane
      expect(lane.mock.results.map((result) => result.value)).toEqual([false, true]);
      expect(stuck).toHaveBeenCalledTimes(2);
    } finally {
      lane.mockRestore();
      stuck.mockRestore();
    }
  });
});
