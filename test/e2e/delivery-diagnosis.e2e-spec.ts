import { IP, refreshIndex, UA } from '../support/serving-helpers';
import {
  blockDetail,
  Body,
  BLOCK_BASE,
  BLOCK_NOT_FOUND,
  CAMPAIGN_BASE,
  clickAd,
  createServable,
  endAllCampaigns,
  expectValidationError,
  fetchAds,
  fetchIds,
  flushedCampaign,
  newUser,
  setStatus,
  UNKNOWN_ID,
} from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAdBlock, openCampaign, createAccount, createAccounts } from '../support/factories';

const DIAGNOSE = '/api/v2/openapi/ad/delivery/diagnose';
const CAMPAIGN_NOT_FOUND = {
  code: 404,
  message: 'campaignId: campaign not found',
  data: { errors: [{ field: 'campaignId', message: 'campaign not found' }] },
};
const TARGETING_CHECKS = [
  'targeting.includedRegions',
  'targeting.excludedRegions',
  'targeting.includedLanguages',
  'targeting.excludedLanguages',
  'targeting.platform',
  'targeting.messengerPremium',
  'targeting.isHighValueUser',
  'targeting.userLinkedWallet',
  'targeting.userLinkedChainWallet',
  'targeting.userWalletHasBalanceOnChain',
];
const CAMPAIGN_CHECKS = [
  'status',
  'budget.total',
  'budget.daily',
  'budget.serving',
  'pacing',
  'optimization',
  'index',
  'schedule',
  ...TARGETING_CHECKS,
  'frequencyCap',
  'exclusion',
  'floor',
  'category',
  'domain',
];

/** GET ad/delivery/diagnose (docs/CONTRACT.md §15): each serving rule's verdict for a campaign and the facts of a request. */
describe('Delivery diagnosis', () => {
  let t: TestApp;
  let advertiser: { accountId: string; apiKey: string };
  let rival: { accountId: string; apiKey: string };
  let publisher: { accountId: string; apiKey: string };
  let otherPublisher: { accountId: string; apiKey: string };
  let block: string;
  let otherBlock: string;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true', USER_IMPRESSIONS_PER_HOUR: '4' });
    ({ advertiser, rival, publisher, otherPublisher } = await createAccounts(t, {
      advertiser: ['advertiser', 'Acme Games'],
      rival: ['advertiser', 'Rival Games'],
      publisher: ['publisher', 'Puzzle App'],
      otherPublisher: ['publisher', 'Other App'],
    }));
    block = await createAdBlock(t, publisher.apiKey, 'Home');
    otherBlock = await createAdBlock(t, otherPublisher.apiKey, 'Elsewhere');
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(async () => {
    await endAllCampaigns(t);
  });

  const diagnoseRaw = (apiKey: string, query: Record<string, unknown>, options: { ip?: string; ua?: string; lang?: string } = {}) => {
    let request = t
      .http()
      .get(DIAGNOSE)
      .query(query)
      .set('x-api-key', apiKey)
      .set('user-agent', options.ua ?? UA.Android);
    if (options.ip) request = request.set('x-forwarded-for', options.ip);
    if (options.lang) request = request.set('accept-language', options.lang);
    return request;
  };
  const diagnose = async (apiKey: string, query: Record<string, unknown>, options: { ip?: string; ua?: string; lang?: string } = {}): Promise<Body> => {
    const response = await diagnoseRaw(apiKey, query, options);
    if (response.status !== 200) throw new Error(`diagnose failed: ${response.status} ${JSON.stringify(response.body)}`);
    expect({ code: response.body.code, message: response.body.message }).toEqual({ code: 0, message: 'success' });
    return response.body.data;
  };
  const check = (diagnosis: Body, name: string): Body => {
    const found = (diagnosis.checks as Body[]).find((entry) => entry.check === name);
    if (!found) throw new Error(`no check ${name}: ${JSON.stringify(diagnosis.checks)}`);
    return found;
  };
  const failing = (diagnosis: Body) => (diagnosis.checks as Body[]).filter((entry) => !entry.passed).map((entry) => entry.check);
  const create = (overrides: Parameters<typeof openCampaign>[0] = {}, apiKey = advertiser.apiKey) =>
    createServable(t, apiKey, openCampaign({ name: 'Diagnosed', ...overrides }));

  describe('a campaign that serves', () => {
    it('should pass every check and rank it first, as matching/ad then serves it', async () => {
      const campaignId = await create({ targeting: { includedRegions: ['DE'], includedLanguages: ['de'], platform: 'Android' } });
      const diagnosis = await diagnose(advertiser.apiKey, { campaignId }, { ip: IP.DE, lang: 'de-DE' });
      expect(diagnosis.campaignId).toBe(campaignId);
      expect(diagnosis.adBlockId).toBeNull();
      expect(diagnosis.servable).toBe(true);
      expect(diagnosis.checks.map((entry: Body) => entry.check)).toEqual([...CAMPAIGN_CHECKS, 'rank', 'traffic']);
      expect(failing(diagnosis)).toEqual([]);
      expect(diagnosis.facts).toMatchObject({
        ip: IP.DE,
        country: 'DE',
        language: 'de',
        platform: 'Android',
        openId: null,
        profile: false,
        invalidTraffic: null,
      });
      expect(diagnosis.rank).toEqual({ position: 1, servableCampaigns: 1, limit: 1, served: true });
      expect(check(diagnosis, 'rank').detail).toBe('1st of 1 servable for these facts: served by a request for 1 ad');
      expect(check(diagnosis, 'targeting.includedRegions').detail).toBe('DE is an included region');
      expect(check(diagnosis, 'budget.total').detail).toBe('0 USDT spent of 1000 USDT');
      expect(check(diagnosis, 'traffic').detail).toBe('valid traffic: impressions are counted and billed');
      expect(diagnosis.ads).toBeNull();
      expect(await fetchIds(t, publisher.apiKey, block, newUser(), { ip: IP.DE, lang: 'de-DE', ua: UA.Android })).toEqual([campaignId]);
    });

    it('should take the facts given in the query over the request’s own', async () => {
      const campaignId = await create({ targeting: { includedRegions: ['GB'], includedLanguages: ['fr'], platform: 'iOS' } });
      const diagnosis = await diagnose(advertiser.apiKey, { campaignId, country: 'gb', language: 'FR', platform: 'iOS' }, { ip: IP.DE, lang: 'de' });
      expect(diagnosis.facts).toMatchObject({ country: 'GB', language: 'fr', platform: 'iOS' });
      expect(diagnosis.servable).toBe(true);
      const byIp = await diagnose(advertiser.apiKey, { campaignId, ip: IP.GB, language: 'fr', platform: 'iOS' });
      expect(byIp.facts).toMatchObject({ ip: IP.GB, country: 'GB' });
      expect(byIp.servable).toBe(true);
    });
  });

  describe('one failing rule of each kind', () => {
    it('should name a paused campaign, which also leaves the serving index', async () => {
      const campaignId = await create();
      await setStatus(t, advertiser.apiKey, campaignId, 'paused');
      await refreshIndex(t);
      const diagnosis = await diagnose(advertiser.apiKey, { campaignId });
      expect(diagnosis.servable).toBe(false);
      expect(failing(diagnosis)).toEqual(['status', 'index', 'rank']);
      expect(check(diagnosis, 'status')).toEqual({ check: 'status', passed: false, detail: 'paused: start it to serve' });
      expect(check(diagnosis, 'index').detail).toBe('not in the serving index: status, schedule or budget keep it out (see those checks)');
      expect(check(diagnosis, 'rank').detail).toBe('not among the 0 campaigns servable for these facts');
    });

    it('should name a schedule that has not started', async () => {
      const start = Date.now() + 3_600_000;
      const campaignId = await create({ budget: { startTime: start, endTime: start + 86_400_000 } });
      const diagnosis = await diagnose(advertiser.apiKey, { campaignId });
      expect(failing(diagnosis)).toEqual(['schedule', 'rank']);
      expect(check(diagnosis, 'schedule').detail).toBe(`not started: starts at ${new Date(start).toISOString()}`);
    });

    it('should name a spent total budget and a spent daily budget', async () => {
      const total = await create({ budget: { amount: 0.0025, total: 0.0025 } });
      const daily = await create({ budget: { amount: 0.0025, total: 1000 } });
      await fetchAds(t, publisher.apiKey, block, newUser(), { limit: 2 });
      await flushedCampaign(t, total);
      await refreshIndex(t);
      const spentTotal = await diagnose(advertiser.apiKey, { campaignId: total });
      expect(failing(spentTotal)).toEqual(['budget.total', 'budget.daily', 'budget.serving', 'index', 'rank']);
      expect(check(spentTotal, 'budget.total').detail).toBe('0.0025 USDT spent of 0.0025 USDT: the total budget is spent');
      expect(check(spentTotal, 'budget.serving').passed).toBe(false);
      const spentToday = await diagnose(advertiser.apiKey, { campaignId: daily });
      expect(failing(spentToday)).toEqual(['budget.daily', 'budget.serving', 'index', 'rank']);
      expect(check(spentToday, 'budget.daily').detail).toBe(
        `0.0025 USDT spent today (the account's day, UTC) of 0.0025 USDT: the daily budget is spent, serving resumes at ${new Date(
          Math.floor(Date.now() / 86_400_000) * 86_400_000 + 86_400_000,
        ).toISOString()}`,
      );
    });

    it('should name each targeting rule that fails, with the value it saw', async () => {
      const cases: [Body, Record<string, string>, string, string][] = [
        [{ includedRegions: ['DE'] }, { country: 'US' }, 'targeting.includedRegions', 'US is not among the included regions (DE)'],
        [{ excludedRegions: ['US'] }, { country: 'US' }, 'targeting.excludedRegions', 'US is an excluded region'],
        [{ includedLanguages: ['de', 'fr'] }, { language: 'en' }, 'targeting.includedLanguages', 'en is not among the included languages (de, fr)'],
        [{ excludedLanguages: ['en'] }, { language: 'en' }, 'targeting.excludedLanguages', 'en is an excluded language'],
        [{ platform: 'iOS' }, { platform: 'Android' }, 'targeting.platform', 'Android: the campaign targets iOS'],
        [
          { messengerPremium: true },
          {},
          'targeting.messengerPremium',
          'requires a premium messenger user, and no profile was read: give adBlockId and openId to read the profile the block’s publisher uploaded',
        ],
        [
          { userLinkedWallet: true },
          {},
          'targeting.userLinkedWallet',
          'requires a user with a linked wallet, and no profile was read: give adBlockId and openId to read the profile the block’s publisher uploaded',
        ],
      ];
      for (const [targeting, facts, name, detail] of cases) {
        const campaignId = await create({ targeting });
        const diagnosis = await diagnose(advertiser.apiKey, { campaignId, ...facts });
        expect({ name, failing: failing(diagnosis), servable: diagnosis.servable }).toEqual({ name, failing: [name, 'rank'], servable: false });
        expect(check(diagnosis, name).detail).toBe(detail);
        await setStatus(t, advertiser.apiKey, campaignId, 'end');
      }
    });

    it('should say a publisher has no profile of the user when it reads the block’s profiles', async () => {
      const campaignId = await create({ targeting: { isHighValueUser: true } });
      const diagnosis = await diagnose(ADMIN_KEY, { campaignId, adBlockId: block, openId: 'nobody-known' });
      expect(check(diagnosis, 'targeting.isHighValueUser').detail).toBe(
        'requires a high-value user, and no profile was read: the block’s publisher has uploaded no profile of nobody-known',
      );
    });

    it('should name the frequency cap reached by a user, and the exclusion after a click', async () => {
      const capped = await create({ bidding: { costPer: 5 } });
      await t
        .http()
        .post(`${CAMPAIGN_BASE}/update`)
        .set('x-api-key', advertiser.apiKey)
        .send({ campaignId: capped, frequencyCap: { impressions: 1, hours: 24 } })
        .expect(200);
      await refreshIndex(t);
      const user = newUser();
      const [ad] = await fetchAds(t, publisher.apiKey, block, user, { limit: 1 });
      expect(ad.campaignId).toBe(capped);
      const afterServe = await diagnose(ADMIN_KEY, { campaignId: capped, adBlockId: block, openId: user });
      expect(check(afterServe, 'frequencyCap')).toEqual({
        check: 'frequencyCap',
        passed: false,
        detail: '1 of 1 impressions to this user within 24 hours: capped for this user',
      });
      expect(check(await diagnose(advertiser.apiKey, { campaignId: capped, openId: newUser() }), 'frequencyCap').detail).toBe(
        '0 of 1 impressions to this user within 24 hours',
      );

      const clicked = await create({ bidding: { costPer: 4 } });
      const clicker = newUser();
      const [shown] = await fetchAds(t, publisher.apiKey, block, clicker, { limit: 2 }).then((ads) => ads.filter((entry) => entry.campaignId === clicked));
      await clickAd(t, publisher.apiKey, shown, clicker).expect(200);
      const afterClick = await diagnose(advertiser.apiKey, { campaignId: clicked, openId: clicker });
      expect(failing(afterClick)).toEqual(['exclusion', 'rank']);
      expect(check(afterClick, 'exclusion').detail).toMatch(/^the user clicked this ad: hidden from them until \d{4}-\d\d-\d\dT/);
    });

    it('should rank a campaign behind a higher bid, and serve it with a larger limit', async () => {
      const ours = await create({ bidding: { costPer: 2 } });
      const theirs = await create({ bidding: { costPer: 3 } }, rival.apiKey);
      const diagnosis = await diagnose(advertiser.apiKey, { campaignId: ours });
      expect(diagnosis.rank).toEqual({ position: 2, servableCampaigns: 2, limit: 1, served: false });
      expect(check(diagnosis, 'rank')).toEqual({
        check: 'rank',
        passed: false,
        detail: '2nd of 2 servable for these facts: a request for 1 ad answers only the best 1; a higher bid places it higher',
      });
      // the rival's bid, targeting and id stay its own
      expect(JSON.stringify(diagnosis)).not.toContain(theirs);
      expect(JSON.stringify(diagnosis)).not.toContain('0.003');
      const two = await diagnose(advertiser.apiKey, { campaignId: ours, limit: 2 });
      expect(two.rank).toEqual({ position: 2, servableCampaigns: 2, limit: 2, served: true });
      expect(two.servable).toBe(true);
      expect(await fetchIds(t, publisher.apiKey, block, newUser(), { limit: 1 })).toEqual([theirs]);
    });

    it('should name a block that requires signed viewers, and the hourly cap of a user on a block', async () => {
      const campaignId = await create();
      const signed = await createAdBlock(t, publisher.apiKey, 'Signed');
      await t.http().post(`${BLOCK_BASE}/update`).set('x-api-key', publisher.apiKey).send({ adBlockId: signed, requireSignedViewer: true }).expect(200);
      const viewer = await diagnose(ADMIN_KEY, { campaignId, adBlockId: signed, openId: 'viewer-1' });
      expect(failing(viewer)).toEqual(['block.signedViewer']);
      expect(viewer.servable).toBe(false);
      expect(check(viewer, 'block.signedViewer').detail).toBe(
        'x-adnet-viewer header is required on this ad block (a viewer token made by your server): ad requests get 401 and nothing is served',
      );

      const user = newUser();
      for (let i = 0; i < 4; i++) await fetchAds(t, publisher.apiKey, block, user, { limit: 1 });
      const capped = await diagnose(publisher.apiKey, { adBlockId: block, openId: user });
      expect(check(capped, 'userCap')).toEqual({
        check: 'userCap',
        passed: false,
        detail: '4 of 4 impressions to this user on this block within the last hour: no more ads for them this hour',
      });
      expect(capped.ads).toEqual([]);
      expect(capped.servable).toBe(false);
      expect(await fetchIds(t, publisher.apiKey, block, user, { limit: 1 })).toEqual([]);
    });

    it('should give the invalid-traffic verdict of the request: answered, not billed', async () => {
      const campaignId = await create();
      const diagnosis = await diagnose(advertiser.apiKey, { campaignId }, { ua: 'curl/8.5.0' });
      expect(diagnosis.servable).toBe(true);
      expect(failing(diagnosis)).toEqual(['traffic']);
      expect(diagnosis.facts.invalidTraffic).toBe('bot');
      expect(check(diagnosis, 'traffic').detail).toBe(
        'invalid traffic (a bot, crawler or HTTP library User-Agent): the ads are answered, but not billed and counted as invalidImpressions, not impressions',
      );
    });
  });

  it('should say why a region-targeted campaign cannot match a loopback request without a country', async () => {
    const campaignId = await create({ targeting: { includedRegions: ['DE'] } });
    const diagnosis = await diagnose(advertiser.apiKey, { campaignId });
    expect(diagnosis.facts.country).toBeNull();
    const ip = diagnosis.facts.ip as string;
    expect(['127.0.0.1', '::ffff:127.0.0.1', '::1']).toContain(ip);
    expect(check(diagnosis, 'targeting.includedRegions')).toEqual({
      check: 'targeting.includedRegions',
      passed: false,
      detail: `no country for ${ip}: region-targeted campaigns cannot match; a local address has none: give a country to test`,
    });
    expect(check(diagnosis, 'targeting.excludedRegions').passed).toBe(true);
  });

  describe('who may ask', () => {
    it("should answer another advertiser's campaign exactly like an unknown one", async () => {
      const campaignId = await create();
      const unknown = await diagnoseRaw(rival.apiKey, { campaignId: UNKNOWN_ID });
      const foreign = await diagnoseRaw(rival.apiKey, { campaignId });
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 404, body: CAMPAIGN_NOT_FOUND });
      expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 404, body: CAMPAIGN_NOT_FOUND });
      // a publisher naming an advertiser's campaign learns nothing of it either
      expect((await diagnoseRaw(publisher.apiKey, { campaignId, adBlockId: block })).body).toEqual(CAMPAIGN_NOT_FOUND);
      expect((await diagnose(ADMIN_KEY, { campaignId })).campaignId).toBe(campaignId);
    });

    it("should show a publisher its own block's checks and the ads it would answer, never advertisers' settings", async () => {
      const best = await create({ bidding: { costPer: 9 }, targeting: { includedRegions: ['DE', 'GB'] } });
      const next = await create({ bidding: { costPer: 1 } }, rival.apiKey);
      const diagnosis = await diagnose(publisher.apiKey, { adBlockId: block, limit: 3 }, { ip: IP.DE });
      expect(diagnosis.servable).toBe(true);
      expect(diagnosis.checks.map((entry: Body) => entry.check)).toEqual([
        'country',
        'language',
        'platform',
        'floor',
        'category',
        'domain',
        'block.signedViewer',
        'userCap',
        'traffic',
      ]);
      expect(check(diagnosis, 'country').detail).toBe(`DE (from the address ${IP.DE})`);
      expect(diagnosis.rank).toBeNull();
      expect(diagnosis.ads).toEqual([
        { campaignId: best, adId: `ad_${best}`, brandName: 'Acme Games' },
        { campaignId: next, adId: `ad_${next}`, brandName: 'Acme Games' },
      ]);
      expect(JSON.stringify(diagnosis)).not.toMatch(/GB|costPer|budget/);

      const unknown = await diagnoseRaw(publisher.apiKey, { adBlockId: UNKNOWN_ID });
      const foreign = await diagnoseRaw(publisher.apiKey, { adBlockId: otherBlock });
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 404, body: BLOCK_NOT_FOUND });
      expect(unknown.body).toEqual(BLOCK_NOT_FOUND);
      // an advertiser cannot read a publisher's block (its users' profiles are the publisher's)
      expect((await diagnoseRaw(advertiser.apiKey, { campaignId: best, adBlockId: block })).body).toEqual(BLOCK_NOT_FOUND);
      expect((await diagnose(ADMIN_KEY, { campaignId: best, adBlockId: otherBlock }, { ip: IP.DE })).ads).toEqual([
        { campaignId: best, adId: `ad_${best}`, brandName: 'Acme Games' },
      ]);
    });

    it('should refuse a publishable key, a missing key and a partner', async () => {
      const serveKey = (await t.http().post('/api/v2/openapi/account/keys').set('x-api-key', publisher.apiKey).send({ scope: 'serve' }).expect(200)).body.data
        .apiKey;
      expect((await diagnoseRaw(serveKey, { adBlockId: block })).status).toBe(403);
      expect((await t.http().get(DIAGNOSE).query({ adBlockId: block })).status).toBe(401);
      const partner = await createAccount(t, ['partner']);
      expect((await diagnoseRaw(partner.apiKey, { adBlockId: block })).status).toBe(403);
    });
  });

  describe('bad input', () => {
    it('should answer 400 naming the field, for each bad value', async () => {
      const campaignId = await create();
      expectValidationError(await diagnoseRaw(advertiser.apiKey, {}), 'campaignId');
      expectValidationError(await diagnoseRaw(advertiser.apiKey, { campaignId, country: 'XX' }), 'country');
      expectValidationError(await diagnoseRaw(advertiser.apiKey, { campaignId, language: 'english' }), 'language');
      expectValidationError(await diagnoseRaw(advertiser.apiKey, { campaignId, platform: 'All' }), 'platform');
      expectValidationError(await diagnoseRaw(advertiser.apiKey, { campaignId, ip: '300.1.1.1' }), 'ip');
      expectValidationError(await diagnoseRaw(advertiser.apiKey, { campaignId, limit: 10 }), 'limit');
      expectValidationError(await diagnoseRaw(advertiser.apiKey, { campaignId, limit: 1.5 }), 'limit');
      expectValidationError(await diagnoseRaw(advertiser.apiKey, { campaignId: 'x'.repeat(65) }), 'campaignId');
      expectValidationError(await diagnoseRaw(advertiser.apiKey, { campaignId, openId: 'u'.repeat(129) }), 'openId');
    });
  });

  it('should move nothing: no budget reserved, no impression, no cap counted', async () => {
    const campaignId = await create({ budget: { amount: 0.0025, total: 0.0025 } });
    await t
      .http()
      .post(`${CAMPAIGN_BASE}/update`)
      .set('x-api-key', advertiser.apiKey)
      .send({ campaignId, frequencyCap: { impressions: 1, hours: 24 } })
      .expect(200);
    await refreshIndex(t);
    const user = newUser();
    const before = { campaign: await flushedCampaign(t, campaignId), block: await blockDetail(t, publisher.apiKey, block) };
    for (let i = 0; i < 5; i++) {
      const diagnosis = await diagnose(ADMIN_KEY, { campaignId, adBlockId: block, openId: user, limit: 9 });
      expect(diagnosis.servable).toBe(true);
      expect(check(diagnosis, 'budget.serving').passed).toBe(true);
      expect(check(diagnosis, 'frequencyCap').detail).toBe('0 of 1 impressions to this user within 24 hours');
      expect(check(diagnosis, 'userCap').detail).toBe('0 of 4 impressions to this user on this block within the last hour');
    }
    const after = { campaign: await flushedCampaign(t, campaignId), block: await blockDetail(t, publisher.apiKey, block) };
    expect(after).toEqual(before);
    // the one impression the budget holds and the cap allows is still there for a real request
    expect(await fetchIds(t, publisher.apiKey, block, user, { limit: 9 })).toEqual([campaignId]);
    const served = await flushedCampaign(t, campaignId);
    expect({ impressions: served.impressions, cost: served.cost }).toEqual({ impressions: before.campaign.impressions + 1, cost: 0.0025 });
  });
});
