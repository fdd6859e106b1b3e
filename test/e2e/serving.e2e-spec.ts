import { ManualClock } from '../../src/common/clock';
import { ServingWarmup } from '../../src/serving/serving-warmup';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { flushStats, IP, refreshIndex, UA } from '../support/serving-helpers';
import {
  BLOCK_BASE,
  BLOCK_NOT_FOUND,
  blockDetail,
  Body,
  clickAd,
  createServable,
  DAY,
  endAllCampaigns,
  expectValidationError,
  fetchAds,
  fetchIds,
  fetchRaw,
  flushedCampaign,
  MINUTE,
  newUser,
  setStatus,
  UNKNOWN_ID,
  untilNextUtcMidnight,
} from '../support/serving-fixtures';
import { createAccount, createAdBlock, createCampaign, openCampaign, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const sorted = (ids: string[]) => [...ids].sort();

describe('Serving: ad blocks and matching/ad (endpoint 5)', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let publisher: Account;
  let otherPublisher: Account;
  let advertiser: Account;
  let block: string;
  let otherBlock: string;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' }, { clock });
    ({ publisher, otherPublisher, advertiser } = await createAccounts(t, {
      publisher: ['publisher', 'Publisher P'],
      otherPublisher: ['publisher', 'Publisher Q'],
      advertiser: ['advertiser', 'Advertiser A'],
    }));
    block = await createAdBlock(t, publisher.apiKey, 'Main block');
    otherBlock = await createAdBlock(t, otherPublisher.apiKey, 'Other block');
  });
  afterAll(() => t.close());

  const http = () => t.http();
  const create = (body: object) => createServable(t, advertiser.apiKey, body);
  const fetchAs = (openId: string, options: Parameters<typeof fetchIds>[4] = {}) => fetchIds(t, publisher.apiKey, block, openId, options);

  describe('ad blocks', () => {
    const listBlocks = async (apiKey: string, query: Record<string, number> = {}) => {
      const response = await http().get(`${BLOCK_BASE}/list`).query(query).set('x-api-key', apiKey).expect(200);
      expect(response.body).toEqual(expect.objectContaining({ code: 0, message: 'success' }));
      return response.body.data as Body;
    };

    it('should create ad blocks and answer their stored data in list (newest first) and detail', async () => {
      const owner = await createAccount(t, ['publisher'], 'Block owner');
      const before = Date.now();
      const created = await http().post(`${BLOCK_BASE}/create`).set('x-api-key', owner.apiKey).send({ name: 'Home banner', extra: 1 });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ code: 0, message: 'success', data: { adBlockId: expect.stringMatching(/^[0-9a-z]{26}$/) } });
      const first = created.body.data.adBlockId as string;
      const second = await createAdBlock(t, owner.apiKey, '🎮 Level end ✓');
      const after = Date.now();

      const detail = await blockDetail(t, owner.apiKey, first);
      expect(detail).toEqual({
        adBlockId: first,
        userId: owner.accountId,
        name: 'Home banner',
        requireSignedViewer: false,
        floorCpm: null,
        floorCpc: null,
        blockedCategories: [],
        blockedDomains: [],
        format: 'banner',
        rewardUrl: null,
        minViewMs: 10000,
        dailyRewardCap: 20,
        impressions: 0,
        clicks: 0,
        unbilledClicks: 0,
        invalidClicks: 0,
        invalidImpressions: 0,
        views: 0,
        completions: 0,
        rewardsCapped: 0,
        ctr: 0,
        earnings: 0,
        createdAt: expect.any(Number),
      });
      expect(detail.createdAt).toBeGreaterThanOrEqual(before);
      expect(detail.createdAt).toBeLessThanOrEqual(after);
      expect(detail).not.toHaveProperty('extra');

      const list = await listBlocks(owner.apiKey);
      expect(list).toEqual({ adBlocks: expect.any(Array), total: 2, current: 1, pageSize: 20, success: true });
      expect(list.adBlocks.map((b: Body) => b.adBlockId)).toEqual([second, first]);
      expect(list.adBlocks[0].name).toBe('🎮 Level end ✓');
      expect(list.adBlocks[1]).toEqual(detail);

      const page2 = await listBlocks(owner.apiKey, { current: 2, pageSize: 1 });
      expect(page2.adBlocks.map((b: Body) => b.adBlockId)).toEqual([first]);
      expect(page2).toEqual(expect.objectContaining({ total: 2, current: 2, pageSize: 1 }));
      // Another publisher never sees them.
      expect((await listBlocks(otherPublisher.apiKey)).adBlocks.map((b: Body) => b.adBlockId)).not.toContain(first);
    });

    it('should accept a name of exactly 200 characters', async () => {
      const id = await createAdBlock(t, publisher.apiKey, 'n'.repeat(200));
      expect((await blockDetail(t, publisher.apiKey, id)).name).toBe('n'.repeat(200));
    });

    it.each([
      ['missing', {}],
      ['empty', { name: '' }],
      ['blank', { name: '   ' }],
      ['201 characters long', { name: 'n'.repeat(201) }],
      ['a number', { name: 42 }],
      ['null', { name: null }],
    ])('should answer 400 naming name when it is %s, and store nothing', async (_case, body) => {
      const owner = await createAccount(t, ['publisher'], 'Validation owner');
      const response = await http().post(`${BLOCK_BASE}/create`).set('x-api-key', owner.apiKey).send(body);
      expectValidationError(response, 'name');
      expect((await listBlocks(owner.apiKey)).total).toBe(0);
    });

    it('should answer 401 without a key and 403 for an advertiser-only key, on create, list and detail', async () => {
      const before = (await listBlocks(ADMIN_KEY, { pageSize: 1 })).total;
      expect((await http().post(`${BLOCK_BASE}/create`).send({ name: 'x' })).status).toBe(401);
      const forbidden = [
        await http().post(`${BLOCK_BASE}/create`).set('x-api-key', advertiser.apiKey).send({ name: 'x' }),
        await http().get(`${BLOCK_BASE}/list`).set('x-api-key', advertiser.apiKey),
        await http().get(`${BLOCK_BASE}/detail`).query({ adBlockId: block }).set('x-api-key', advertiser.apiKey),
        // the role is checked before the input
        await http().post(`${BLOCK_BASE}/create`).set('x-api-key', advertiser.apiKey).send({}),
      ];
      for (const response of forbidden) {
        expect(response.status).toBe(403);
        expect(response.body.code).toBe(403);
        expect(typeof response.body.message).toBe('string');
      }
      expect((await listBlocks(ADMIN_KEY, { pageSize: 1 })).total).toBe(before);
    });

    it("should answer another publisher's block detail exactly like an unknown id (404)", async () => {
      const foreign = await http().get(`${BLOCK_BASE}/detail`).query({ adBlockId: otherBlock }).set('x-api-key', publisher.apiKey);
      const unknown = await http().get(`${BLOCK_BASE}/detail`).query({ adBlockId: UNKNOWN_ID }).set('x-api-key', publisher.apiKey);
      expect(foreign.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(foreign.body).toEqual(BLOCK_NOT_FOUND);
      expect(unknown.body).toEqual(BLOCK_NOT_FOUND);
    });

    it('should answer detail without adBlockId with 400 naming adBlockId', async () => {
      expectValidationError(await http().get(`${BLOCK_BASE}/detail`).set('x-api-key', publisher.apiKey), 'adBlockId');
    });
  });

  describe('matching/ad validation and access', () => {
    const valid = () => ({ adBlockId: block, openId: 'user-1', type: 'messenger', limit: '3' });

    it.each([
      ['adBlockId missing', 'adBlockId', (q: Body) => delete q.adBlockId],
      ['adBlockId empty', 'adBlockId', (q: Body) => (q.adBlockId = '')],
      ['openId missing', 'openId', (q: Body) => delete q.openId],
      ['openId empty', 'openId', (q: Body) => (q.openId = '')],
      ['type missing', 'type', (q: Body) => delete q.type],
      ['type whatsapp (telegram is an alias of messenger, §14)', 'type', (q: Body) => (q.type = 'whatsapp')],
      ['limit missing', 'limit', (q: Body) => delete q.limit],
      ['limit 0', 'limit', (q: Body) => (q.limit = '0')],
      ['limit 10', 'limit', (q: Body) => (q.limit = '10')],
      ['limit 2.5', 'limit', (q: Body) => (q.limit = '2.5')],
      ['limit abc', 'limit', (q: Body) => (q.limit = 'abc')],
      ['limit -1', 'limit', (q: Body) => (q.limit = '-1')],
      ['limit empty', 'limit', (q: Body) => (q.limit = '')],
    ])('should answer 400 naming the field for %s', async (_case, field, mutate) => {
      const query = valid();
      mutate(query);
      const response = await http().get('/api/v2/openapi/matching/ad').query(query).set('x-api-key', publisher.apiKey);
      expectValidationError(response, field);
    });

    it.each([1, 9])('should accept limit %i', async (limit) => {
      const response = await fetchRaw(t, publisher.apiKey, block, newUser(), { limit });
      expect(response.status).toBe(200);
    });

    it('should answer 401 without a key or with an unknown key', async () => {
      const query = valid();
      const missing = await http().get('/api/v2/openapi/matching/ad').query(query);
      expect(missing.status).toBe(401);
      expect(missing.body.code).toBe(401);
      const unknown = await http().get('/api/v2/openapi/matching/ad').query(query).set('x-api-key', 'not-a-real-key-0123456789abcdef');
      expect(unknown.status).toBe(401);
      expect(unknown.body.code).toBe(401);
    });

    it('should answer 403 for an advertiser key, also when the input is invalid (403 before 400)', async () => {
      const ok = await http().get('/api/v2/openapi/matching/ad').query(valid()).set('x-api-key', advertiser.apiKey);
      expect(ok.status).toBe(403);
      expect(ok.body.code).toBe(403);
      const invalid = await http().get('/api/v2/openapi/matching/ad').query({ limit: '99' }).set('x-api-key', advertiser.apiKey);
      expect(invalid.status).toBe(403);
      expect(invalid.body.code).toBe(403);
    });

    it("should answer an unknown adBlockId and another publisher's block with the identical 404, also in debug", async () => {
      for (const debug of [undefined, 'true']) {
        const foreign = await fetchRaw(t, publisher.apiKey, otherBlock, 'user-1', { debug });
        const unknown = await fetchRaw(t, publisher.apiKey, UNKNOWN_ID, 'user-1', { debug });
        expect(foreign.status).toBe(404);
        expect(unknown.status).toBe(404);
        expect(foreign.body).toEqual(BLOCK_NOT_FOUND);
        expect(unknown.body).toEqual(BLOCK_NOT_FOUND);
      }
    });
  });

  describe('answer shape and ranking', () => {
    beforeEach(() => endAllCampaigns(t));

    it('should answer each ad with the campaign creative and the requested adBlockId', async () => {
      const campaignId = await create(
        openCampaign({
          ad: {
            popupImage: 'https://cdn.example.com/shape-popup.png',
            icon: 'https://cdn.example.com/shape-icon.png',
            text: 'Shape text ✓',
            destination: { actionType: 'open.miniapp', url: 'https://t.example/app?start=shape' },
          },
        }),
      );
      const response = await fetchRaw(t, publisher.apiKey, block, newUser(), { limit: 3 });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        code: 0,
        message: 'success',
        data: { msg: expect.any(String), success: true, ads: [expect.any(Object)] },
      });
      const [ad] = response.body.data.ads;
      expect(ad).toEqual(
        expect.objectContaining({
          adBlockId: block,
          adId: expect.any(String),
          campaignId,
          icon: 'https://cdn.example.com/shape-icon.png',
          image: 'https://cdn.example.com/shape-popup.png',
          text: 'Shape text ✓',
          destination: { actionType: 'open.miniapp', url: 'https://t.example/app?start=shape' },
        }),
      );
      expect(ad.adId.length).toBeGreaterThan(0);
      // the same campaign answers the same ad id every time
      const [again] = await fetchAds(t, publisher.apiKey, block, newUser());
      expect(again.adId).toBe(ad.adId);
    });

    it('should answer success with an empty ads list when nothing matches', async () => {
      const response = await fetchRaw(t, publisher.apiKey, block, newUser(), { limit: 5 });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ code: 0, message: 'success', data: { msg: expect.any(String), success: true, ads: [] } });
      await create(openCampaign({ targeting: { includedRegions: ['JP'] } }));
      expect(await fetchAs(newUser(), { ip: IP.US })).toEqual([]);
    });

    it('should never answer a campaign twice and never more than limit ads', async () => {
      const ids = [];
      for (let i = 0; i < 4; i++) ids.push(await create(openCampaign({ bidding: { costPer: 1 + i } })));
      const all = await fetchAs(newUser(), { limit: 9 });
      expect(sorted(all)).toEqual(sorted(ids));
      expect(await fetchAs(newUser(), { limit: 2 })).toHaveLength(2);
      expect(await fetchAs(newUser(), { limit: 1 })).toHaveLength(1);
      const ads = await fetchAds(t, publisher.apiKey, block, newUser(), { limit: 9 });
      expect(new Set(ads.map((ad) => ad.adId)).size).toBe(4);
    });

    it('should rank by expected revenue per impression: CPC 0.5 (fresh) between CPM 6 and CPM 2', async () => {
      const cpm2 = await create(openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }));
      const cpc = await create(openCampaign({ bidding: { billingType: 'CPC', costPer: 0.5 } }));
      const cpm6 = await create(openCampaign({ bidding: { billingType: 'CPM', costPer: 6 } }));
      expect(await fetchAs(newUser(), { limit: 3 })).toEqual([cpm6, cpc, cpm2]);
      expect(await fetchAs(newUser(), { limit: 2 })).toEqual([cpm6, cpc]);
      expect(await fetchAs(newUser(), { limit: 1 })).toEqual([cpm6]);
    });

    it('should estimate the CTR of a CPC campaign as (clicks + 1) / (impressions + 100)', async () => {
      const cpc = await create(openCampaign({ bidding: { billingType: 'CPC', costPer: 0.5 } }));
      const cpm = await create(openCampaign({ bidding: { billingType: 'CPM', costPer: 3 } }));
      // fresh: 0.5 x 1/100 x 1000 = 5 > 3
      expect(await fetchAs(newUser(), { limit: 2 })).toEqual([cpc, cpm]);

      // 100 impressions, no click: 0.5 x 1/200 x 1000 = 2.5 < 3
      const users = Array.from({ length: 99 }, () => newUser('ctr'));
      for (let i = 0; i < users.length; i += 25) {
        await Promise.all(users.slice(i, i + 25).map((user) => fetchAs(user, { limit: 2 })));
      }
      const detail = await flushedCampaign(t, cpc);
      expect(detail.impressions).toBe(100);
      await refreshIndex(t);
      expect(await fetchAs(newUser(), { limit: 2 })).toEqual([cpm, cpc]);

      // 3 clicks on 101 impressions: 0.5 x 4/201 x 1000 = 9.95 > 3
      const ads = await fetchAds(t, publisher.apiKey, block, users[0], { limit: 2 });
      expect(ads.map((ad) => ad.campaignId)).toEqual([cpm, cpc]);
      for (const user of users.slice(1, 4)) {
        const ad = (await fetchAds(t, publisher.apiKey, block, user, { limit: 2 })).find((a) => a.campaignId === cpc)!;
        const click = await clickAd(t, publisher.apiKey, ad, user);
        expect(click.body.data).toEqual({ status: 'success', msg: 'click counted' });
      }
      await flushStats(t);
      await refreshIndex(t);
      expect(await fetchAs(newUser(), { limit: 2 })).toEqual([cpc, cpm]);
    });
  });

  describe('targeting', () => {
    beforeEach(() => endAllCampaigns(t));

    it('should match included and excluded regions by the client IP; an unknown country only matches no include list', async () => {
      const incUS = await create(openCampaign({ name: 'incUS', targeting: { includedRegions: ['US'] } }));
      const exclUS = await create(openCampaign({ name: 'exclUS', targeting: { excludedRegions: ['US'] } }));
      const incGBDE = await create(openCampaign({ name: 'incGBDE', targeting: { includedRegions: ['GB', 'DE'] } }));
      const exclDE = await create(openCampaign({ name: 'exclDE', targeting: { includedRegions: ['DE', 'US'], excludedRegions: ['DE'] } }));
      const open = await create(openCampaign({ name: 'open' }));

      expect(sorted(await fetchAs(newUser(), { ip: IP.US }))).toEqual(sorted([incUS, exclDE, open]));
      expect(sorted(await fetchAs(newUser(), { ip: IP.GB }))).toEqual(sorted([exclUS, incGBDE, open]));
      expect(sorted(await fetchAs(newUser(), { ip: IP.DE }))).toEqual(sorted([exclUS, incGBDE, open]));
      // no public IP: the country is unknown
      expect(sorted(await fetchAs(newUser()))).toEqual(sorted([exclUS, open]));
      expect(sorted(await fetchAs(newUser(), { ip: '10.1.2.3' }))).toEqual(sorted([exclUS, open]));
    });

    it('should match included and excluded languages by Accept-Language with q-values; * or none is unknown', async () => {
      const incEN = await create(openCampaign({ name: 'incEN', targeting: { includedLanguages: ['en'] } }));
      const exclEN = await create(openCampaign({ name: 'exclEN', targeting: { excludedLanguages: ['en'] } }));
      const incDE = await create(openCampaign({ name: 'incDE', targeting: { includedLanguages: ['de'] } }));
      const open = await create(openCampaign({ name: 'open' }));

      expect(sorted(await fetchAs(newUser(), { lang: 'en-US,en;q=0.9' }))).toEqual(sorted([incEN, open]));
      expect(sorted(await fetchAs(newUser(), { lang: 'EN-gb' }))).toEqual(sorted([incEN, open]));
      expect(sorted(await fetchAs(newUser(), { lang: 'fr;q=0.5, de;q=0.9' }))).toEqual(sorted([exclEN, incDE, open]));
      expect(sorted(await fetchAs(newUser(), { lang: 'de-DE' }))).toEqual(sorted([exclEN, incDE, open]));
      expect(sorted(await fetchAs(newUser(), { lang: 'fr-CH, fr;q=0.9, en;q=0.8' }))).toEqual(sorted([exclEN, open]));
      expect(sorted(await fetchAs(newUser(), { lang: 'en;q=0.2, zu-ZA;q=0.8' }))).toEqual(sorted([exclEN, open]));
      expect(sorted(await fetchAs(newUser(), { lang: '*' }))).toEqual(sorted([exclEN, open]));
      expect(sorted(await fetchAs(newUser()))).toEqual(sorted([exclEN, open]));
    });

    it('should match the platform from the User-Agent; All matches any device and an unknown one', async () => {
      const ios = await create(openCampaign({ name: 'iOS', targeting: { platform: 'iOS' } }));
      const android = await create(openCampaign({ name: 'Android', targeting: { platform: 'Android' } }));
      const desktop = await create(openCampaign({ name: 'Desktop', targeting: { platform: 'Desktop' } }));
      const all = await create(openCampaign({ name: 'All', targeting: { platform: 'All' } }));

      expect(sorted(await fetchAs(newUser(), { ua: UA.iOS }))).toEqual(sorted([ios, all]));
      expect(sorted(await fetchAs(newUser(), { ua: UA.Android }))).toEqual(sorted([android, all]));
      expect(sorted(await fetchAs(newUser(), { ua: UA.Desktop }))).toEqual(sorted([desktop, all]));
      expect(await fetchAs(newUser(), { ua: null })).toEqual([all]);
      expect(await fetchAs(newUser(), { ua: 'curl/8.0' })).toEqual([all]);
    });

    it('should never serve a campaign requiring a profile flag (no profiles yet) and serve one with the flag false', async () => {
      const flags = ['messengerPremium', 'isHighValueUser', 'userLinkedChainWallet', 'userLinkedWallet', 'userWalletHasBalanceOnChain'];
      const open = await create(openCampaign({ name: 'open' }));
      for (const flag of flags) await create(openCampaign({ name: `${flag} true`, targeting: { [flag]: true } }));
      expect(await fetchAs(newUser(), { ip: IP.US, lang: 'en', ua: UA.iOS })).toEqual([open]);

      const falseOnes = [];
      for (const flag of flags) falseOnes.push(await create(openCampaign({ name: `${flag} false`, targeting: { [flag]: false } })));
      expect(sorted(await fetchAs(newUser(), { ip: IP.US, lang: 'en', ua: UA.iOS }))).toEqual(sorted([open, ...falseOnes]));
    });

    it('should require every targeted field to match at once', async () => {
      const combo = await create(
        openCampaign({ targeting: { includedRegions: ['US'], includedLanguages: ['en'], platform: 'iOS', excludedLanguages: ['de'] } }),
      );
      expect(await fetchAs(newUser(), { ip: IP.US, lang: 'en', ua: UA.iOS })).toEqual([combo]);
      expect(await fetchAs(newUser(), { ip: IP.GB, lang: 'en', ua: UA.iOS })).toEqual([]);
      expect(await fetchAs(newUser(), { ip: IP.US, lang: 'de', ua: UA.iOS })).toEqual([]);
      expect(await fetchAs(newUser(), { ip: IP.US, lang: 'en', ua: UA.Android })).toEqual([]);
      // the factory default (US/DE, en) serves to a German IP speaking English
      const factory = await create(openCampaign({ targeting: { includedRegions: ['US', 'DE'], includedLanguages: ['en'] } }));
      expect(await fetchAs(newUser(), { ip: IP.DE, lang: 'en', ua: UA.Android })).toEqual([factory]);
    });
  });

  describe('campaign state and schedule', () => {
    beforeEach(() => endAllCampaigns(t));

    it('should serve only onGoing campaigns; a paused campaign started again is served', async () => {
      const live = await create(openCampaign({ name: 'live' }));
      const paused = await create(openCampaign({ name: 'paused' }));
      const ended = await create(openCampaign({ name: 'ended' }));
      await setStatus(t, advertiser.apiKey, paused, 'paused');
      await setStatus(t, advertiser.apiKey, ended, 'end');
      await refreshIndex(t);
      expect(await fetchAs(newUser())).toEqual([live]);

      await setStatus(t, advertiser.apiKey, paused, 'start');
      await refreshIndex(t);
      expect(sorted(await fetchAs(newUser()))).toEqual(sorted([live, paused]));
      await setStatus(t, advertiser.apiKey, live, 'paused');
      await refreshIndex(t);
      expect(await fetchAs(newUser())).toEqual([paused]);
    });

    it('should take up a new or paused campaign without waiting for the periodic index refresh (10 s)', async () => {
      const within = async (ms: number, condition: (ids: string[]) => boolean) => {
        const deadline = Date.now() + ms;
        for (;;) {
          const ids = await fetchAs(newUser());
          if (condition(ids) || Date.now() > deadline) return ids;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      };
      const campaignId = await createCampaign(t, advertiser.apiKey, openCampaign({ name: 'notice' }));
      expect(await within(2000, (ids) => ids.includes(campaignId))).toEqual([campaignId]);
      await setStatus(t, advertiser.apiKey, campaignId, 'paused');
      expect(await within(2000, (ids) => ids.length === 0)).toEqual([]);
    });

    it('should serve only inside [startTime, endTime)', async () => {
      const now = clock.now();
      const live = await create(openCampaign({ name: 'live' }, now));
      const future = await create(openCampaign({ name: 'future', budget: { startTime: now + 5 * MINUTE, endTime: now + DAY } }, now));
      const past = await create(openCampaign({ name: 'past', budget: { startTime: now - 2 * DAY, endTime: now - DAY } }, now));
      const ending = await create(openCampaign({ name: 'ending', budget: { startTime: now - DAY, endTime: now + 5 * MINUTE } }, now));
      expect(past).toBeDefined();
      expect(sorted(await fetchAs(newUser()))).toEqual(sorted([live, ending]));

      clock.advance(5 * MINUTE);
      await refreshIndex(t);
      expect(sorted(await fetchAs(newUser()))).toEqual(sorted([live, future]));
    });
  });

  describe('debug header', () => {
    let realCampaign: string;
    beforeAll(async () => {
      await endAllCampaigns(t);
      realCampaign = await create(openCampaign({ name: 'real' }));
    });

    it.each(['true', '1', 'TRUE'])('should answer exactly limit well-formed test ads for debug: %s and count nothing', async (debug) => {
      const debugBlock = await createAdBlock(t, publisher.apiKey, `debug ${debug}`);
      for (const limit of [1, 4, 9]) {
        const ads = await fetchAds(t, publisher.apiKey, debugBlock, newUser(), { limit, debug });
        expect(ads).toHaveLength(limit);
        expect(new Set(ads.map((ad) => ad.campaignId)).size).toBe(limit);
        for (const ad of ads) {
          expect(ad).toEqual(
            expect.objectContaining({
              adBlockId: debugBlock,
              adId: expect.stringMatching(/\S/),
              campaignId: expect.stringMatching(/\S/),
              icon: expect.stringMatching(/^https?:\/\//),
              image: expect.stringMatching(/^https?:\/\//),
              text: expect.stringMatching(/\S/),
              destination: { actionType: expect.any(String), url: expect.stringMatching(/^https?:\/\//) },
            }),
          );
          expect(ad.campaignId).not.toBe(realCampaign);
        }
      }
      await flushStats(t);
      expect(await blockDetail(t, publisher.apiKey, debugBlock)).toEqual(expect.objectContaining({ impressions: 0, clicks: 0, earnings: 0 }));
      expect(await flushedCampaign(t, realCampaign)).toEqual(expect.objectContaining({ impressions: 0, cost: 0 }));
    });

    it.each(['false', '0', 'yes'])('should serve real ads (counted) for debug: %s', async (debug) => {
      const realBlock = await createAdBlock(t, publisher.apiKey, `real ${debug}`);
      const before = (await flushedCampaign(t, realCampaign)).impressions as number;
      expect(await fetchIds(t, publisher.apiKey, realBlock, newUser(), { debug })).toEqual([realCampaign]);
      await flushStats(t);
      expect((await blockDetail(t, publisher.apiKey, realBlock)).impressions).toBe(1);
      expect((await flushedCampaign(t, realCampaign)).impressions).toBe(before + 1);
    });
  });

  describe('budgets and counting', () => {
    beforeEach(() => endAllCampaigns(t));

    it('should count each impression once: impressions, cost and block earnings equal what was returned', async () => {
      const countBlock = await createAdBlock(t, publisher.apiKey, 'count');
      const campaignId = await create(openCampaign({ bidding: { billingType: 'CPM', costPer: 2.5 } }));
      let returned = 0;
      for (const user of [newUser(), newUser(), newUser()]) {
        for (let i = 0; i < 3; i++) returned += (await fetchIds(t, publisher.apiKey, countBlock, user, { limit: 9 })).length;
      }
      expect(returned).toBe(9);
      const detail = await flushedCampaign(t, campaignId);
      // 9 x 2.5 / 1000 = 0.0225; publisher: 9 x floor(2500 x 0.7) micro = 0.01575
      expect(detail).toEqual(expect.objectContaining({ impressions: 9, clicks: 0, cost: 0.0225, ctr: 0 }));
      expect(await blockDetail(t, publisher.apiKey, countBlock)).toEqual(expect.objectContaining({ impressions: 9, clicks: 0, ctr: 0, earnings: 0.01575 }));
    });

    it('should floor the publisher share per impression (1 micro-USDT impressions earn nothing)', async () => {
      const tinyBlock = await createAdBlock(t, publisher.apiKey, 'tiny');
      const campaignId = await create(openCampaign({ bidding: { billingType: 'CPM', costPer: 0.001 } }));
      for (let i = 0; i < 4; i++) await fetchIds(t, publisher.apiKey, tinyBlock, newUser());
      expect(await flushedCampaign(t, campaignId)).toEqual(expect.objectContaining({ impressions: 4, cost: 0.000004 }));
      expect(await blockDetail(t, publisher.apiKey, tinyBlock)).toEqual(expect.objectContaining({ impressions: 4, earnings: 0 }));
    });

    it('should stop a CPM campaign exactly when its total budget is spent (5 impressions of 0.001)', async () => {
      const campaignId = await create(openCampaign({ budget: { amount: 0.005, total: 0.005 }, bidding: { billingType: 'CPM', costPer: 1 } }));
      const served: string[][] = [];
      for (let i = 0; i < 7; i++) served.push(await fetchAs(newUser()));
      expect(served).toEqual([[campaignId], [campaignId], [campaignId], [campaignId], [campaignId], [], []]);
      const detail = await flushedCampaign(t, campaignId);
      expect(detail).toEqual(expect.objectContaining({ impressions: 5, cost: 0.005, deliveryStatus: 'budgetSpent' }));
      await refreshIndex(t);
      expect(await fetchAs(newUser())).toEqual([]);
    });

    it('should count and bill nothing when the process warms up the ad fetch over the real index', async () => {
      const campaignId = await create(openCampaign({ budget: { amount: 0.005, total: 0.005 }, bidding: { billingType: 'CPM', costPer: 1 } }));
      const warmed = t.app.get(ServingWarmup).warm();
      expect(warmed.contexts).toBeGreaterThan(0);
      expect(warmed.campaigns).toBe(1);
      expect(await flushedCampaign(t, campaignId)).toEqual(expect.objectContaining({ impressions: 0, cost: 0 }));
      // its whole budget is still there: exactly 5 impressions of 0.001
      const served: string[][] = [];
      for (let i = 0; i < 6; i++) served.push(await fetchAs(newUser()));
      expect(served).toEqual([[campaignId], [campaignId], [campaignId], [campaignId], [campaignId], []]);
      expect(await flushedCampaign(t, campaignId)).toEqual(expect.objectContaining({ impressions: 5, cost: 0.005 }));
    });

    it('should not pass the total budget under concurrent fetches', async () => {
      const campaignId = await create(openCampaign({ budget: { amount: 0.005, total: 0.005 }, bidding: { billingType: 'CPM', costPer: 1 } }));
      const answers = await Promise.all(Array.from({ length: 20 }, () => fetchAs(newUser())));
      expect(answers.flat()).toEqual([campaignId, campaignId, campaignId, campaignId, campaignId]);
      expect(await flushedCampaign(t, campaignId)).toEqual(expect.objectContaining({ impressions: 5, cost: 0.005, deliveryStatus: 'budgetSpent' }));
    });

    it('should stop at the daily budget and serve again after the next UTC midnight', async () => {
      const now = clock.now();
      const campaignId = await create(openCampaign({ budget: { amount: 0.003, total: 1 }, bidding: { billingType: 'CPM', costPer: 1 } }, now));
      const today: string[][] = [];
      for (let i = 0; i < 5; i++) today.push(await fetchAs(newUser()));
      expect(today).toEqual([[campaignId], [campaignId], [campaignId], [], []]);
      const detail = await flushedCampaign(t, campaignId);
      expect(detail).toEqual(expect.objectContaining({ impressions: 3, cost: 0.003 }));
      // The service's detail reads the real time, which is still the same UTC day here.
      expect(detail.deliveryStatus).toBe('dailyBudgetSpent');

      clock.advance(untilNextUtcMidnight(clock.now()));
      await refreshIndex(t);
      const tomorrow: string[][] = [];
      for (let i = 0; i < 5; i++) tomorrow.push(await fetchAs(newUser()));
      expect(tomorrow).toEqual([[campaignId], [campaignId], [campaignId], [], []]);
      expect(await flushedCampaign(t, campaignId)).toEqual(expect.objectContaining({ impressions: 6, cost: 0.006 }));
    });
  });
});
