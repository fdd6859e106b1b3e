import { ManualClock } from '../../src/common/clock';
import { TEST_PROFILE } from '../support/profile';
import { CLICK, UA } from '../support/serving-helpers';
import {
  BLOCK_BASE,
  BLOCK_NOT_FOUND,
  blockDetail,
  Body,
  CAMPAIGN_BASE,
  createServable,
  DAY,
  expectValidationError,
  fetchAds,
  flushedCampaign,
  HOUR,
  newUser,
} from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { openCampaign, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const MIN_VIEW_MS = 20_000;

const MESSAGES = {
  counted: 'completion counted',
  duplicate: 'duplicate completion: not counted again',
  tooSoon: "completion not counted: sooner than the block's minViewMs after the ad was served",
  noImpression: 'completion not counted: no matching impression',
  invalid: 'completion recorded as invalid traffic: not counted',
  testAd: 'test ad: not counted',
};

describe(`Completions (endpoint 6, eventType complete) [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  const clock = new ManualClock();
  let publisher: Account;
  let otherPublisher: Account;
  let advertiser: Account;
  let serveKey: string;
  let block: string;
  let otherBlock: string;
  let campaignId: string;

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
    ({ publisher, otherPublisher, advertiser } = await createAccounts(t, {
      publisher: ['publisher', 'Rewarded publisher'],
      otherPublisher: ['publisher', 'Other publisher'],
      advertiser: ['advertiser', 'Rewarded advertiser'],
    }));
    const newBlock = async (body: Body, key = publisher.apiKey) =>
      (await t.http().post(`${BLOCK_BASE}/create`).set('x-api-key', key).send(body).expect(200)).body.data.adBlockId as string;
    block = await newBlock({ name: 'Extra life', format: 'rewarded', minViewMs: MIN_VIEW_MS });
    otherBlock = await newBlock({ name: 'Second spot', minViewMs: MIN_VIEW_MS });
    campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }, clock.now()));
    serveKey = (await t.http().post('/api/v2/openapi/account/keys').set('x-api-key', publisher.apiKey).send({ scope: 'serve' }).expect(200)).body.data.apiKey;
  });
  afterAll(() => t.close());

  const serve = async (user: string, adBlockId = block, ua: string = UA.Android): Promise<Body> => {
    const ad = (await fetchAds(t, publisher.apiKey, adBlockId, user, { limit: 1, ua })).find((served) => served.campaignId === campaignId);
    if (!ad) throw new Error(`campaign not served to ${user}`);
    return ad;
  };
  const complete = (ad: Body, user: string, options: { key?: string; ua?: string; adBlockId?: string } = {}) =>
    t
      .http()
      .post(CLICK)
      .set('x-api-key', options.key ?? publisher.apiKey)
      .set('user-agent', options.ua ?? UA.Android)
      .send({
        eventType: 'complete',
        eventData: { adBlockId: options.adBlockId ?? ad.adBlockId, messengerUserId: user, adId: ad.adId, campaignId: ad.campaignId },
      });
  const expectMsg = async (response: Promise<{ status: number; body: Body }> | { status: number; body: Body }, msg: string) => {
    const answered = await response;
    expect([answered.status, answered.body]).toEqual([200, { code: 0, message: 'success', data: { status: 'success', msg } }]);
  };
  const completions = async () => ({
    campaign: (await flushedCampaign(t, campaignId)).completions,
    block: (await blockDetail(t, publisher.apiKey, block)).completions,
    otherBlock: (await blockDetail(t, publisher.apiKey, otherBlock)).completions,
  });

  it('should count a completion only once minViewMs passed since the serve, once per impression', async () => {
    const before = await completions();
    const user = newUser('done');
    const ad = await serve(user);
    await expectMsg(complete(ad, user), MESSAGES.tooSoon);
    // half-way (the clock also runs with real time: the halves leave it seconds of slack)
    clock.advance(MIN_VIEW_MS / 2);
    await expectMsg(complete(ad, user), MESSAGES.tooSoon);
    expect(await completions()).toEqual(before);
    // the early reports did not use the impression up
    clock.advance(MIN_VIEW_MS / 2);
    await expectMsg(complete(ad, user), MESSAGES.counted);
    await expectMsg(complete(ad, user), MESSAGES.duplicate);
    clock.advance(HOUR);
    await expectMsg(complete(ad, user), MESSAGES.duplicate);
    expect(await completions()).toEqual({ ...before, campaign: before.campaign + 1, block: before.block + 1 });
  });

  it('should take a completion from a serve key, and a new serve of the same ad is a new impression', async () => {
    const before = await completions();
    const user = newUser('serve-key');
    const first = await serve(user);
    clock.advance(MIN_VIEW_MS);
    await expectMsg(complete(first, user, { key: serveKey }), MESSAGES.counted);
    const second = await serve(user);
    await expectMsg(complete(second, user, { key: serveKey }), MESSAGES.tooSoon);
    clock.advance(MIN_VIEW_MS);
    await expectMsg(complete(second, user, { key: serveKey }), MESSAGES.counted);
    expect(await completions()).toEqual({ ...before, campaign: before.campaign + 2, block: before.block + 2 });
  });

  it('should answer success and count nothing for an unknown impression, another block or user, or one over 24 h old', async () => {
    const before = await completions();
    const user = newUser('unknown');
    const ad = await serve(user);
    clock.advance(MIN_VIEW_MS);
    await expectMsg(complete(ad, newUser('stranger')), MESSAGES.noImpression);
    await expectMsg(complete(ad, user, { adBlockId: otherBlock }), MESSAGES.noImpression);
    await expectMsg(complete({ ...ad, adId: 'ad_unknown' }, user), MESSAGES.noImpression);
    await expectMsg(complete({ ...ad, campaignId: '01hzzzzzzzzzzzzzzzzzzzzzzz' }, user), MESSAGES.noImpression);
    clock.advance(DAY);
    await expectMsg(complete(ad, user), MESSAGES.noImpression);
    expect(await completions()).toEqual(before);
  });

  it('should not count invalid traffic: a bot completing, or a completion of an impression served to a bot', async () => {
    const before = await completions();
    const user = newUser('bot');
    const ad = await serve(user);
    clock.advance(MIN_VIEW_MS);
    await expectMsg(complete(ad, user, { ua: 'curl/8.4.0' }), MESSAGES.invalid);
    // the impression is used up by it: a browser's report afterwards is a repeat
    await expectMsg(complete(ad, user), MESSAGES.duplicate);
    const botUser = newUser('bot-served');
    const botAd = await serve(botUser, block, 'python-requests/2.31');
    clock.advance(MIN_VIEW_MS);
    await expectMsg(complete(botAd, botUser), MESSAGES.invalid);
    expect(await completions()).toEqual(before);
  });

  it('should answer a test ad without counting it', async () => {
    const user = newUser('debug');
    const response = await t
      .http()
      .get('/api/v2/openapi/matching/ad')
      .query({ adBlockId: block, openId: user, type: 'messenger', limit: 1 })
      .set('x-api-key', publisher.apiKey)
      .set('debug', 'true');
    const ad = response.body.data.ads[0] as Body;
    await expectMsg(complete(ad, user), MESSAGES.testAd);
  });

  it('should count on the block it was served on, in the campaign and block series and detail alike', async () => {
    const user = newUser('series');
    const ad = await serve(user, otherBlock);
    clock.advance(MIN_VIEW_MS);
    await expectMsg(complete(ad, user), MESSAGES.counted);
    const totals = await completions();
    const from = clock.now() - 3 * DAY;
    const to = clock.now() + HOUR;
    const series = async (path: string, query: Body, key: string) =>
      (
        (
          await t
            .http()
            .get(path)
            .query({ ...query, from, to, granularity: 'hour' })
            .set('x-api-key', key)
            .expect(200)
        ).body.data.series as Body[]
      ).reduce((sum, point) => sum + point.completions, 0);
    expect(await series(`${CAMPAIGN_BASE}/stats`, { campaignId }, advertiser.apiKey)).toBe(totals.campaign);
    expect(await series(`${BLOCK_BASE}/stats`, { adBlockId: block }, publisher.apiKey)).toBe(totals.block);
    expect(await series(`${BLOCK_BASE}/stats`, { adBlockId: otherBlock }, publisher.apiKey)).toBe(1);
    expect(totals.otherBlock).toBe(1);
    expect(totals.campaign).toBe(totals.block + totals.otherBlock);
    const listed = (await t.http().get(`${CAMPAIGN_BASE}/list`).set('x-api-key', advertiser.apiKey).expect(200)).body.data.campaigns as Body[];
    expect(listed.find((item) => item.id === campaignId)?.completions).toBe(totals.campaign);
    const blocks = (await t.http().get(`${BLOCK_BASE}/list`).set('x-api-key', publisher.apiKey).expect(200)).body.data.adBlocks as Body[];
    expect(blocks.find((item) => item.adBlockId === block)?.completions).toBe(totals.block);
    // and in the reports, by block for the publisher and by campaign for the advertiser
    const report = async (key: string, groupBy: string) =>
      (await t.http().get('/api/v2/openapi/report').query({ from, to, groupBy }).set('x-api-key', key).expect(200)).body.data as {
        rows: Body[];
        totals: Body;
      };
    const byBlock = await report(publisher.apiKey, 'adBlock');
    expect(byBlock.rows.find((row) => row.adBlockId === block)?.completions).toBe(totals.block);
    expect(byBlock.rows.find((row) => row.adBlockId === otherBlock)?.completions).toBe(1);
    const byCampaign = await report(advertiser.apiKey, 'campaign');
    expect(byCampaign.rows.find((row) => row.campaignId === campaignId)?.completions).toBe(totals.campaign);
  });

  it("should answer another publisher's block like an unknown one, an advertiser key 403, and a bad body 400", async () => {
    const user = newUser('access');
    const ad = await serve(user);
    clock.advance(MIN_VIEW_MS);
    const foreign = await complete(ad, user, { key: otherPublisher.apiKey });
    expect([foreign.status, foreign.body]).toEqual([404, BLOCK_NOT_FOUND]);
    expect((await complete(ad, user, { key: advertiser.apiKey })).status).toBe(403);
    const bad = (body: Body) => t.http().post(CLICK).set('x-api-key', publisher.apiKey).send(body);
    expectValidationError(
      await bad({ eventType: 'completed', eventData: { adBlockId: block, messengerUserId: user, adId: ad.adId, campaignId } }),
      'eventType',
    );
    expectValidationError(await bad({ eventType: 'complete', eventData: { adBlockId: block, messengerUserId: user, adId: ad.adId } }), 'eventData.campaignId');
    expectValidationError(await bad({ eventType: 'complete' }), 'eventData');
    // none of it used the impression up
    await expectMsg(complete(ad, user), MESSAGES.counted);
    const admin = await complete(ad, user, { key: ADMIN_KEY });
    expect(admin.body.data.msg).toBe(MESSAGES.duplicate);
  });
});
