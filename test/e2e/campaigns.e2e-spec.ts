import type { Test } from 'supertest';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAccount, campaignBody } from '../support/factories';

const BASE = '/api/v2/openapi/ad/campaign';
const CREATE = `${BASE}/create`;
const STATUS = `${BASE}/status`;
const LIST = `${BASE}/list`;
const DETAIL = `${BASE}/detail`;
const UPDATE = `${BASE}/update`;

const DAY = 24 * 60 * 60 * 1000;
/** Well-formed, never issued: the id layout of the service (26 lower-case Crockford base32 characters). */
const UNKNOWN_ID = '01hzzzzzzzzzzzzzzzzzzzzzzz';
const NOT_FOUND = {
  code: 404,
  message: 'campaignId: campaign not found',
  data: { errors: [{ field: 'campaignId', message: 'campaign not found' }] },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Requests and checks shared by the suites below, bound to one running application. */
function helpers(getApp: () => TestApp) {
  const http = () => getApp().http();

  const create = async (key: string, body: Body = campaignBody()): Promise<string> => {
    const response = await http().post(CREATE).set('x-api-key', key).send(body).expect(200);
    expect(response.body).toEqual({
      code: 0,
      message: 'success',
      data: { campaignId: expect.stringMatching(/^[0-9a-z]{26}$/) },
    });
    return response.body.data.campaignId;
  };

  const detail = async (key: string, campaignId: string): Promise<Body> => {
    const response = await http().get(DETAIL).query({ campaignId }).set('x-api-key', key).expect(200);
    expect(response.body.code).toBe(0);
    expect(response.body.message).toBe('success');
    return response.body.data;
  };

  const status = (key: string, campaignId: string, value: string) => http().post(STATUS).set('x-api-key', key).send({ campaignId, status: value });

  const statusOk = async (key: string, campaignId: string, value: string) => {
    const response = await status(key, campaignId, value).expect(200);
    expect(response.body).toEqual({ code: 0, message: 'success', data: { result: 'success' } });
  };

  const list = async (key: string, query: Record<string, string | number> = {}): Promise<Body> => {
    const response = await http().get(LIST).query(query).set('x-api-key', key).expect(200);
    expect(response.body.code).toBe(0);
    expect(response.body.message).toBe('success');
    return response.body.data;
  };

  const expectState = async (key: string, campaignId: string, campaignStatus: string, deliveryStatus: string) => {
    const data = await detail(key, campaignId);
    expect({ campaignStatus: data.campaignStatus, deliveryStatus: data.deliveryStatus }).toEqual({
      campaignStatus,
      deliveryStatus,
    });
  };

  return { http, create, detail, status, statusOk, list, expectState };
}

describe('Campaigns (endpoints 1-4 and update)', () => {
  let t: TestApp;
  let advertiser: { accountId: string; apiKey: string };
  const { http, create, detail, status, statusOk, list, expectState } = helpers(() => t);

  beforeAll(async () => {
    t = await startTestApp();
    advertiser = await createAccount(t, ['advertiser'], 'Advertiser A');
  });
  afterAll(() => t.close());

  /** Every campaign in the service (admin sees all): proves a failed request stored nothing. */
  const totalCampaigns = async () => (await list(ADMIN_KEY, { pageSize: 1 })).total as number;

  const expectValidationError = (response: { status: number; body: Body }, field: string) => {
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(400);
    expect(typeof response.body.message).toBe('string');
    const entry = (response.body.data.errors as { field: string; message: string }[]).find((error) => error.field === field);
    expect(entry).toBeDefined();
    expect(entry!.message).toContain(field);
    expect(response.body.message).toContain(field);
  };

  describe('create and detail', () => {
    it('should store every field and answer it exactly in the detail, with targeting normalised and zero stats', async () => {
      const startTime = Date.now() - DAY;
      const endTime = Date.now() + 10 * DAY;
      const body: Body = {
        name: 'Exact fields',
        targeting: {
          includedRegions: ['us', 'De'],
          excludedRegions: ['cn'],
          includedLanguages: ['EN', 'ru'],
          excludedLanguages: ['Zh'],
          platform: 'Android',
          messengerPremium: true,
          isHighValueUser: false,
          userLinkedChainWallet: true,
          unknownTargeting: 'dropped',
        },
        budget: { amount: 12.345678, total: 1000.5, strategy: 'daily', startTime, endTime, currency: 'EUR' },
        bidding: { billingType: 'CPC', costPer: 2.5, floor: 1 },
        ad: {
          adFormat: 'image',
          popupImage: 'https://cdn.example.com/exact.png',
          icon: 'http://cdn.example.com/exact-icon.png',
          destination: { actionType: 'open.miniapp', url: 'https://t.example/app?start=1', extra: true },
          text: 'Exact text',
          brandName: 'Exact Brand',
          buttonText: 'Go',
          colour: 'red',
        },
        verificationUrl: 'https://verify.example.com/adnet?source=exact',
        foo: 'bar',
        userId: 'someone-else',
        campaignStatus: 'ended',
        impressions: 99,
      };
      const before = Date.now();
      const campaignId = await create(advertiser.apiKey, body);
      const after = Date.now();

      const data = await detail(advertiser.apiKey, campaignId);
      expect(data).toEqual({
        campaignId,
        id: campaignId,
        userId: advertiser.accountId,
        name: 'Exact fields',
        targeting: {
          includedRegions: ['US', 'DE'],
          excludedRegions: ['CN'],
          includedLanguages: ['en', 'ru'],
          excludedLanguages: ['zh'],
          platform: 'Android',
          messengerPremium: true,
          isHighValueUser: false,
          userLinkedChainWallet: true,
          userLinkedWallet: false,
          userWalletHasBalanceOnChain: false,
        },
        // no pacing given: even, the default
        budget: { amount: 12.345678, total: 1000.5, strategy: 'daily', startTime, endTime, pacing: 'even' },
        bidding: { billingType: 'CPC', costPer: 2.5 },
        ad: {
          adFormat: 'image',
          popupImage: 'https://cdn.example.com/exact.png',
          icon: 'http://cdn.example.com/exact-icon.png',
          destination: { actionType: 'open.miniapp', url: 'https://t.example/app?start=1' },
          text: 'Exact text',
          brandName: 'Exact Brand',
          buttonText: 'Go',
        },
        category: 'other',
        reviewStatus: 'approved',
        reviewNote: null,
        pendingAd: null,
        pendingCategory: null,
        verificationUrl: 'https://verify.example.com/adnet?source=exact',
        frequencyCap: null,
        campaignStatus: 'onGoing',
        deliveryStatus: 'delivering',
        // nothing spent: on pace in the first tenth of the day, behind after it
        pacingStatus: expect.stringMatching(/^(onPace|behind)$/),
        // the account has UTC days: the next UTC midnight
        budgetResetsAt: Math.floor(Date.now() / DAY) * DAY + DAY,
        impressions: 0,
        clicks: 0,
        optimizationEvent: 'conversion',
        // no block data yet: nothing preferred or held back; the rate is the network's prior (shared by other tests' data)
        optimization: { event: 'conversion', campaignEventRate: expect.any(Number), blocksPreferred: [], blocksHeldBack: [] },
        conversions: 0,
        events: { conversion: 0, onboard: 0, register: 0, play: 0, payment: 0, withdraw: 0 },
        cost: 0,
        spentToday: 0,
        ctr: 0,
        cr: 0,
        // no clicks yet: the prior alone (the default rate while the network is too small to share its own)
        estimatedEventRate: 0.02,
        verifiedClicks: 0,
        unbilledClicks: 0,
        invalidClicks: 0,
        invalidImpressions: 0,
        views: 0,
        completions: 0,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      });
      expect(data.createdAt).toBeGreaterThanOrEqual(before);
      expect(data.createdAt).toBeLessThanOrEqual(after);
      expect(data.updatedAt).toBe(data.createdAt);
      // unknown fields are dropped at every level, never echoed
      expect(data).not.toHaveProperty('foo');
      expect(data.targeting).not.toHaveProperty('unknownTargeting');
      expect(data.budget).not.toHaveProperty('currency');
      expect(data.bidding).not.toHaveProperty('floor');
      expect(data.ad).not.toHaveProperty('colour');
      expect(data.ad.destination).not.toHaveProperty('extra');
    });

    it('should fill missing targeting with empty lists, false flags and platform All', async () => {
      const body = campaignBody();
      body.targeting = {} as typeof body.targeting;
      const campaignId = await create(advertiser.apiKey, body);
      const data = await detail(advertiser.apiKey, campaignId);
      expect(data.targeting).toEqual({
        includedRegions: [],
        excludedRegions: [],
        includedLanguages: [],
        excludedLanguages: [],
        platform: 'All',
        messengerPremium: false,
        isHighValueUser: false,
        userLinkedChainWallet: false,
        userLinkedWallet: false,
        userWalletHasBalanceOnChain: false,
      });
    });

    it('should store the wallet flags userLinkedWallet and userWalletHasBalanceOnChain when given', async () => {
      const campaignId = await create(advertiser.apiKey, campaignBody({ targeting: { userLinkedWallet: true, userWalletHasBalanceOnChain: true } }));
      const { targeting } = await detail(advertiser.apiKey, campaignId);
      expect(targeting.userLinkedWallet).toBe(true);
      expect(targeting.userWalletHasBalanceOnChain).toBe(true);
      expect(targeting.userLinkedChainWallet).toBe(false);
    });

    it('should keep CPM and CPC money figures exactly (micro-USDT precision)', async () => {
      const cpm = await create(
        advertiser.apiKey,
        campaignBody({ budget: { amount: 0.000001, total: 999999.999999 }, bidding: { billingType: 'CPM', costPer: 0.001 } }),
      );
      const cpmData = await detail(advertiser.apiKey, cpm);
      expect(cpmData.budget.amount).toBe(0.000001);
      expect(cpmData.budget.total).toBe(999999.999999);
      expect(cpmData.bidding).toEqual({ billingType: 'CPM', costPer: 0.001 });

      const cpc = await create(advertiser.apiKey, campaignBody({ bidding: { billingType: 'CPC', costPer: 0.000001 } }));
      expect((await detail(advertiser.apiKey, cpc)).bidding).toEqual({ billingType: 'CPC', costPer: 0.000001 });
    });

    it('should keep the largest amounts exactly and refuse one above the maximum', async () => {
      const id = await create(advertiser.apiKey, campaignBody({ budget: { amount: 1e9, total: 1e9 }, bidding: { billingType: 'CPC', costPer: 1e9 } }));
      const data = await detail(advertiser.apiKey, id);
      expect(data.budget).toEqual(expect.objectContaining({ amount: 1e9, total: 1e9 }));
      expect(data.bidding).toEqual({ billingType: 'CPC', costPer: 1e9 });
      const over = await http()
        .post(CREATE)
        .set('x-api-key', advertiser.apiKey)
        .send(campaignBody({ budget: { amount: 1, total: 1e9 + 1 } }));
      expectValidationError(over, 'budget.total');
    });

    it('should keep non-ASCII and emoji text exactly', async () => {
      const id = await create(
        advertiser.apiKey,
        campaignBody({ name: '🚀 Zürich launch 表情', ad: { text: 'Спасибо 🎉', brandName: 'Ünïcødé', buttonText: '▶ Play' } }),
      );
      const data = await detail(advertiser.apiKey, id);
      expect(data.name).toBe('🚀 Zürich launch 表情');
      expect(data.ad).toEqual(expect.objectContaining({ text: 'Спасибо 🎉', brandName: 'Ünïcødé', buttonText: '▶ Play' }));
    });

    it('should answer deliveryStatus scheduled for a future startTime and finished for a past endTime', async () => {
      const now = Date.now();
      const future = await create(advertiser.apiKey, campaignBody({ budget: { startTime: now + DAY, endTime: now + 2 * DAY } }));
      await expectState(advertiser.apiKey, future, 'onGoing', 'scheduled');
      const past = await create(advertiser.apiKey, campaignBody({ budget: { startTime: now - 2 * DAY, endTime: now - DAY } }));
      await expectState(advertiser.apiKey, past, 'onGoing', 'finished');
    });

    it('should answer detail without campaignId with 400 naming campaignId', async () => {
      const response = await http().get(DETAIL).set('x-api-key', advertiser.apiKey);
      expectValidationError(response, 'campaignId');
    });

    it('should answer detail of an unknown id with the 404 envelope', async () => {
      const response = await http().get(DETAIL).query({ campaignId: UNKNOWN_ID }).set('x-api-key', advertiser.apiKey).expect(404);
      expect(response.body).toEqual(NOT_FOUND);
    });
  });

  describe('list', () => {
    it('should list newest first with exact item fields, and page through them', async () => {
      const owner = await createAccount(t, ['advertiser'], 'Lister');
      const first = await create(owner.apiKey, campaignBody({ name: 'L1' }));
      const second = await create(owner.apiKey, campaignBody({ name: 'L2', bidding: { billingType: 'CPC', costPer: 0.3 } }));
      const third = await create(owner.apiKey, campaignBody({ name: 'L3' }));

      const all = await list(owner.apiKey);
      expect(all).toEqual({ campaigns: expect.any(Array), total: 3, current: 1, pageSize: 20, success: true });
      expect(all.campaigns.map((item: Body) => item.id)).toEqual([third, second, first]);
      const secondDetail = await detail(owner.apiKey, second);
      expect(all.campaigns[1]).toEqual({
        userId: owner.accountId,
        id: second,
        name: 'L2',
        campaignStatus: 'onGoing',
        deliveryStatus: 'delivering',
        impressions: 0,
        clicks: 0,
        optimizationEvent: 'conversion',
        conversions: 0,
        events: { conversion: 0, onboard: 0, register: 0, play: 0, payment: 0, withdraw: 0 },
        billingType: 'CPC',
        category: 'other',
        reviewStatus: 'approved',
        frequencyCap: null,
        budget: secondDetail.budget,
        cost: 0,
        spentToday: 0,
        ctr: 0,
        cr: 0,
        verifiedClicks: 0,
        unbilledClicks: 0,
        invalidClicks: 0,
        invalidImpressions: 0,
        views: 0,
        completions: 0,
        createdAt: secondDetail.createdAt,
      });
      expect(all.campaigns[0].billingType).toBe('CPM');

      const page1 = await list(owner.apiKey, { current: 1, pageSize: 2 });
      expect(page1.campaigns.map((item: Body) => item.id)).toEqual([third, second]);
      expect(page1).toEqual(expect.objectContaining({ total: 3, current: 1, pageSize: 2, success: true }));

      const page2 = await list(owner.apiKey, { current: 2, pageSize: 2 });
      expect(page2.campaigns.map((item: Body) => item.id)).toEqual([first]);
      expect(page2).toEqual(expect.objectContaining({ total: 3, current: 2, pageSize: 2, success: true }));

      const past = await list(owner.apiKey, { current: 3, pageSize: 2 });
      expect(past).toEqual({ campaigns: [], total: 3, current: 3, pageSize: 2, success: true });

      const wide = await list(owner.apiKey, { current: 1, pageSize: 100 });
      expect(wide.campaigns).toHaveLength(3);
      expect(wide.pageSize).toBe(100);
    });

    it('should show the current campaign and delivery status in list items', async () => {
      const owner = await createAccount(t, ['advertiser'], 'Status lister');
      const paused = await create(owner.apiKey);
      await statusOk(owner.apiKey, paused, 'paused');
      const ended = await create(owner.apiKey);
      await statusOk(owner.apiKey, ended, 'end');
      const items = (await list(owner.apiKey)).campaigns as Body[];
      expect(items.map((item) => [item.id, item.campaignStatus, item.deliveryStatus])).toEqual([
        [ended, 'ended', 'ended'],
        [paused, 'paused', 'paused'],
      ]);
    });

    it('should answer an empty first page for an advertiser without campaigns', async () => {
      const owner = await createAccount(t, ['advertiser'], 'Empty');
      expect(await list(owner.apiKey)).toEqual({ campaigns: [], total: 0, current: 1, pageSize: 20, success: true });
    });

    it.each([
      ['current', '0'],
      ['current', '-1'],
      ['current', 'abc'],
      ['current', '1.5'],
      ['pageSize', '0'],
      ['pageSize', '101'],
      ['pageSize', 'abc'],
      ['pageSize', '-5'],
      ['pageSize', '2.5'],
    ])('should answer 400 naming %s for the value %s', async (field, value) => {
      const response = await http()
        .get(LIST)
        .query({ [field]: value })
        .set('x-api-key', advertiser.apiKey);
      expectValidationError(response, field);
    });

    it.each(['1e20', '99999999999999999999'])('should answer a huge current=%s with an empty page or a 400 naming current, never a 500', async (value) => {
      const response = await http().get(LIST).query({ current: value }).set('x-api-key', advertiser.apiKey);
      expect([200, 400]).toContain(response.status);
      if (response.status === 200) {
        expect(response.body.data.campaigns).toEqual([]);
      } else {
        expectValidationError(response, 'current');
      }
    });
  });

  describe('create validation', () => {
    const cases: [string, string, (body: Body) => void][] = [
      ['name missing', 'name', (b) => delete b.name],
      ['name empty', 'name', (b) => (b.name = '')],
      ['name not a string', 'name', (b) => (b.name = 42)],
      ['name of 201 characters', 'name', (b) => (b.name = 'n'.repeat(201))],
      ['name null', 'name', (b) => (b.name = null)],
      ['targeting missing', 'targeting', (b) => delete b.targeting],
      ['targeting a string', 'targeting', (b) => (b.targeting = 'US')],
      ['targeting an array', 'targeting', (b) => (b.targeting = [])],
      ['includedRegions not an array', 'targeting.includedRegions', (b) => (b.targeting.includedRegions = 'US')],
      ['includedRegions [XX]', 'targeting.includedRegions', (b) => (b.targeting.includedRegions = ['XX'])],
      ['excludedRegions [usa]', 'targeting.excludedRegions', (b) => (b.targeting.excludedRegions = ['usa'])],
      ['includedLanguages [english]', 'targeting.includedLanguages', (b) => (b.targeting.includedLanguages = ['english'])],
      ['excludedLanguages [5]', 'targeting.excludedLanguages', (b) => (b.targeting.excludedLanguages = [5])],
      ['platform Windows', 'targeting.platform', (b) => (b.targeting.platform = 'Windows')],
      ['messengerPremium "yes"', 'targeting.messengerPremium', (b) => (b.targeting.messengerPremium = 'yes')],
      ['budget missing', 'budget', (b) => delete b.budget],
      ['budget.amount missing', 'budget.amount', (b) => delete b.budget.amount],
      ['budget.amount 0', 'budget.amount', (b) => (b.budget.amount = 0)],
      ['budget.amount -1', 'budget.amount', (b) => (b.budget.amount = -1)],
      ['budget.amount "10" (a string)', 'budget.amount', (b) => (b.budget.amount = '10')],
      ['budget.amount with 7 decimals', 'budget.amount', (b) => (b.budget.amount = 1.1234567)],
      ['budget.total missing', 'budget.total', (b) => delete b.budget.total],
      ['budget.amount above budget.total', 'budget.amount', (b) => ((b.budget.amount = 1000.000001), (b.budget.total = 1000))],
      ['budget.strategy weekly', 'budget.strategy', (b) => (b.budget.strategy = 'weekly')],
      ['budget.startTime "now"', 'budget.startTime', (b) => (b.budget.startTime = 'now')],
      ['budget.startTime 1.5', 'budget.startTime', (b) => (b.budget.startTime = 1.5)],
      ['budget.endTime equal to startTime', 'budget.endTime', (b) => (b.budget.endTime = b.budget.startTime)],
      ['budget.endTime before startTime', 'budget.endTime', (b) => (b.budget.endTime = b.budget.startTime - 1)],
      ['bidding missing', 'bidding', (b) => delete b.bidding],
      ['bidding.billingType CPA', 'bidding.billingType', (b) => (b.bidding.billingType = 'CPA')],
      ['bidding.costPer 0', 'bidding.costPer', (b) => (b.bidding.costPer = 0)],
      ['bidding.costPer negative', 'bidding.costPer', (b) => (b.bidding.costPer = -2.5)],
      ['CPM bidding.costPer with 4 decimals', 'bidding.costPer', (b) => (b.bidding = { billingType: 'CPM', costPer: 0.0005 })],
      ['ad missing', 'ad', (b) => delete b.ad],
      ['ad.adFormat video', 'ad.adFormat', (b) => (b.ad.adFormat = 'video')],
      ['ad.popupImage not a URL', 'ad.popupImage', (b) => (b.ad.popupImage = 'not a url')],
      ['ad.icon with ftp', 'ad.icon', (b) => (b.ad.icon = 'ftp://x/y.png')],
      ['ad.destination missing', 'ad.destination', (b) => delete b.ad.destination],
      ['ad.destination.actionType download', 'ad.destination.actionType', (b) => (b.ad.destination.actionType = 'download')],
      ['ad.destination.url missing', 'ad.destination.url', (b) => delete b.ad.destination.url],
      ['ad.text empty', 'ad.text', (b) => (b.ad.text = '')],
      ['ad.brandName missing', 'ad.brandName', (b) => delete b.ad.brandName],
      ['ad.buttonText of 51 characters', 'ad.buttonText', (b) => (b.ad.buttonText = 'b'.repeat(51))],
      ['verificationUrl not a URL', 'verificationUrl', (b) => (b.verificationUrl = 'verify me')],
      ['verificationUrl with javascript:', 'verificationUrl', (b) => (b.verificationUrl = 'javascript:alert(1)')],
      ['verificationUrl a number', 'verificationUrl', (b) => (b.verificationUrl = 7)],
    ];

    it.each(cases)('should refuse %s with 400 naming %s and store nothing', async (_label, field, mutate) => {
      const before = await totalCampaigns();
      const body: Body = clone(campaignBody());
      mutate(body);
      const response = await http().post(CREATE).set('x-api-key', advertiser.apiKey).send(body);
      expectValidationError(response, field);
      expect(await totalCampaigns()).toBe(before);
    });

    it.each([
      ['name', (b: Body) => (b.name = '   ')],
      ['ad.text', (b: Body) => (b.ad.text = ' \t ')],
      ['ad.brandName', (b: Body) => (b.ad.brandName = '  ')],
      ['ad.buttonText', (b: Body) => (b.ad.buttonText = ' ')],
    ])('should refuse a blank (whitespace-only) %s with 400 and store nothing', async (field, mutate) => {
      const before = await totalCampaigns();
      const body: Body = clone(campaignBody());
      mutate(body);
      const response = await http().post(CREATE).set('x-api-key', advertiser.apiKey).send(body);
      expectValidationError(response, field);
      expect(await totalCampaigns()).toBe(before);
    });

    it('should say "is required" for null in a required field', async () => {
      const body: Body = clone(campaignBody());
      body.name = null;
      body.budget.total = null;
      const response = await http().post(CREATE).set('x-api-key', advertiser.apiKey).send(body).expect(400);
      expect(response.body.data.errors).toEqual(
        expect.arrayContaining([
          { field: 'name', message: 'name is required' },
          { field: 'budget.total', message: 'budget.total is required' },
        ]),
      );
    });

    it('should report several invalid fields at once', async () => {
      const body: Body = clone(campaignBody());
      body.name = '';
      body.ad.icon = 'nope';
      const response = await http().post(CREATE).set('x-api-key', advertiser.apiKey).send(body).expect(400);
      const fields = (response.body.data.errors as Body[]).map((error) => error.field);
      expect(fields).toEqual(expect.arrayContaining(['name', 'ad.icon']));
    });

    it('should accept a CPC costPer of 0.000001 while CPM needs at most 3 decimals', async () => {
      const campaignId = await create(advertiser.apiKey, campaignBody({ bidding: { billingType: 'CPC', costPer: 0.000001 } }));
      expect((await detail(advertiser.apiKey, campaignId)).bidding.costPer).toBe(0.000001);
      const cpm = await http()
        .post(CREATE)
        .set('x-api-key', advertiser.apiKey)
        .send(campaignBody({ bidding: { billingType: 'CPM', costPer: 0.000001 } }));
      expectValidationError(cpm, 'bidding.costPer');
    });

    it('should accept budget.amount equal to budget.total', async () => {
      const campaignId = await create(advertiser.apiKey, campaignBody({ budget: { amount: 100, total: 100 } }));
      expect((await detail(advertiser.apiKey, campaignId)).budget).toEqual(expect.objectContaining({ amount: 100, total: 100 }));
    });
  });

  describe('auth and roles', () => {
    const calls: [string, (key?: string) => Test][] = [
      ['create', (key) => withKey(http().post(CREATE).send(campaignBody()), key)],
      ['status', (key) => withKey(http().post(STATUS).send({ campaignId: UNKNOWN_ID, status: 'paused' }), key)],
      ['list', (key) => withKey(http().get(LIST), key)],
      ['detail', (key) => withKey(http().get(DETAIL).query({ campaignId: UNKNOWN_ID }), key)],
      ['update', (key) => withKey(http().post(UPDATE).send({ campaignId: UNKNOWN_ID, name: 'x' }), key)],
    ];
    function withKey(test: Test, key?: string): Test {
      return key === undefined ? test : test.set('x-api-key', key);
    }

    it.each(calls)('should answer %s without a key with the 401 envelope', async (_name, call) => {
      const response = await call();
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ code: 401, message: expect.stringContaining('x-api-key'), data: {} });
    });

    it.each(calls)('should answer %s with an unknown key with the 401 envelope', async (_name, call) => {
      const response = await call('adn_' + 'x'.repeat(43));
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ code: 401, message: expect.stringContaining('x-api-key'), data: {} });
    });

    it.each(calls)('should answer %s with a publisher-only key with the 403 envelope', async (_name, call) => {
      const publisher = await createAccount(t, ['publisher']);
      const response = await call(publisher.apiKey);
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ code: 403, message: expect.stringContaining('advertiser'), data: {} });
    });

    it('should answer 403 to a partner-only key as well', async () => {
      const partner = await createAccount(t, ['partner']);
      const response = await http().get(LIST).set('x-api-key', partner.apiKey).expect(403);
      expect(response.body.code).toBe(403);
    });

    it('should check the key, then the role, before the body (401 -> 403 -> 400)', async () => {
      const publisher = await createAccount(t, ['publisher']);
      const before = await totalCampaigns();
      await http().post(CREATE).send({ name: 5 }).expect(401);
      const create403 = await http().post(CREATE).set('x-api-key', publisher.apiKey).send({ name: 5 }).expect(403);
      expect(create403.body.code).toBe(403);
      await http().post(STATUS).set('x-api-key', publisher.apiKey).send({ status: 'stop' }).expect(403);
      await http().get(LIST).query({ current: 0 }).set('x-api-key', publisher.apiKey).expect(403);
      await http().get(DETAIL).set('x-api-key', publisher.apiKey).expect(403);
      await http().post(UPDATE).set('x-api-key', publisher.apiKey).send({ budget: 'x' }).expect(403);
      expect(await totalCampaigns()).toBe(before);
    });

    it('should let a key holding advertiser among other roles use the campaign endpoints', async () => {
      const both = await createAccount(t, ['publisher', 'advertiser']);
      const campaignId = await create(both.apiKey);
      expect((await detail(both.apiKey, campaignId)).userId).toBe(both.accountId);
    });
  });

  describe('ownership', () => {
    it("should answer another advertiser's campaign exactly like an unknown id, and list only one's own", async () => {
      const a = await createAccount(t, ['advertiser'], 'Owner A');
      const b = await createAccount(t, ['advertiser'], 'Other B');
      const campaignA = await create(a.apiKey, campaignBody({ name: 'A campaign' }));
      const campaignB = await create(b.apiKey, campaignBody({ name: 'B campaign' }));

      const requests: [string, (id: string) => Promise<{ status: number; body: Body }>][] = [
        ['detail', (id) => http().get(DETAIL).query({ campaignId: id }).set('x-api-key', b.apiKey)],
        ['status', (id) => http().post(STATUS).set('x-api-key', b.apiKey).send({ campaignId: id, status: 'end' })],
        ['update', (id) => http().post(UPDATE).set('x-api-key', b.apiKey).send({ campaignId: id, name: 'stolen' })],
      ];
      for (const [name, request] of requests) {
        const foreign = await request(campaignA);
        const unknown = await request(UNKNOWN_ID);
        expect({ name, status: foreign.status, body: foreign.body }).toEqual({ name, status: 404, body: NOT_FOUND });
        expect({ name, status: unknown.status, body: unknown.body }).toEqual({ name, status: 404, body: NOT_FOUND });
      }

      // nothing B tried changed A's campaign
      const aDetail = await detail(a.apiKey, campaignA);
      expect(aDetail).toEqual(expect.objectContaining({ name: 'A campaign', campaignStatus: 'onGoing', userId: a.accountId }));

      const bList = await list(b.apiKey);
      expect(bList.total).toBe(1);
      expect(bList.campaigns.map((item: Body) => item.id)).toEqual([campaignB]);
      const aList = await list(a.apiKey);
      expect(aList.campaigns.map((item: Body) => item.id)).toEqual([campaignA]);

      const adminList = await list(ADMIN_KEY, { pageSize: 100 });
      const adminItems = adminList.campaigns as Body[];
      expect(adminItems.find((item) => item.id === campaignA)).toEqual(expect.objectContaining({ userId: a.accountId, name: 'A campaign' }));
      expect(adminItems.find((item) => item.id === campaignB)).toEqual(expect.objectContaining({ userId: b.accountId, name: 'B campaign' }));
      expect(adminList.total).toBeGreaterThanOrEqual(2);

      expect(await detail(ADMIN_KEY, campaignA)).toEqual(aDetail);
    });
  });

  describe('status transitions', () => {
    it('should pause an onGoing campaign and start it again', async () => {
      const id = await create(advertiser.apiKey);
      await expectState(advertiser.apiKey, id, 'onGoing', 'delivering');
      await statusOk(advertiser.apiKey, id, 'paused');
      await expectState(advertiser.apiKey, id, 'paused', 'paused');
      await statusOk(advertiser.apiKey, id, 'start');
      await expectState(advertiser.apiKey, id, 'onGoing', 'delivering');
    });

    it('should treat paused on a paused campaign as success (idempotent)', async () => {
      const id = await create(advertiser.apiKey);
      await statusOk(advertiser.apiKey, id, 'paused');
      await statusOk(advertiser.apiKey, id, 'paused');
      await expectState(advertiser.apiKey, id, 'paused', 'paused');
    });

    it('should treat start on an onGoing campaign as success (idempotent)', async () => {
      const id = await create(advertiser.apiKey);
      await statusOk(advertiser.apiKey, id, 'start');
      await expectState(advertiser.apiKey, id, 'onGoing', 'delivering');
    });

    it('should end an onGoing campaign', async () => {
      const id = await create(advertiser.apiKey);
      await statusOk(advertiser.apiKey, id, 'end');
      await expectState(advertiser.apiKey, id, 'ended', 'ended');
    });

    it('should end a paused campaign', async () => {
      const id = await create(advertiser.apiKey);
      await statusOk(advertiser.apiKey, id, 'paused');
      await statusOk(advertiser.apiKey, id, 'end');
      await expectState(advertiser.apiKey, id, 'ended', 'ended');
    });

    it('should answer end on an ended campaign with success (idempotent)', async () => {
      const id = await create(advertiser.apiKey);
      await statusOk(advertiser.apiKey, id, 'end');
      await statusOk(advertiser.apiKey, id, 'end');
      await expectState(advertiser.apiKey, id, 'ended', 'ended');
    });

    it.each(['start', 'paused'])('should refuse %s on an ended campaign with 409 and keep it ended', async (action) => {
      const id = await create(advertiser.apiKey);
      await statusOk(advertiser.apiKey, id, 'end');
      const response = await status(advertiser.apiKey, id, action).expect(409);
      expect(response.body).toEqual({ code: 409, message: expect.any(String), data: expect.any(Object) });
      expect(response.body.message.length).toBeGreaterThan(0);
      await expectState(advertiser.apiKey, id, 'ended', 'ended');
    });

    it('should refuse start on an ended campaign even for an admin', async () => {
      const id = await create(advertiser.apiKey);
      await statusOk(advertiser.apiKey, id, 'end');
      await status(ADMIN_KEY, id, 'start').expect(409);
      await expectState(advertiser.apiKey, id, 'ended', 'ended');
    });

    it('should answer an unknown status value with 400 naming status, changing nothing', async () => {
      const id = await create(advertiser.apiKey);
      const response = await status(advertiser.apiKey, id, 'stop');
      expectValidationError(response, 'status');
      const missing = await http().post(STATUS).set('x-api-key', advertiser.apiKey).send({ campaignId: id });
      expectValidationError(missing, 'status');
      await expectState(advertiser.apiKey, id, 'onGoing', 'delivering');
    });

    it('should answer a missing campaignId with 400 naming campaignId', async () => {
      const response = await http().post(STATUS).set('x-api-key', advertiser.apiKey).send({ status: 'paused' });
      expectValidationError(response, 'campaignId');
    });

    it('should answer an unknown campaignId with the exact 404 envelope', async () => {
      const response = await status(advertiser.apiKey, UNKNOWN_ID, 'paused').expect(404);
      expect(response.body).toEqual(NOT_FOUND);
    });

    it('should check the input (400) before the campaign exists (404)', async () => {
      const response = await status(advertiser.apiKey, UNKNOWN_ID, 'stop');
      expectValidationError(response, 'status');
    });
  });

  describe('update', () => {
    const update = (key: string, body: Body) => http().post(UPDATE).set('x-api-key', key).send(body);

    const updateOk = async (body: Body): Promise<Body> => {
      const response = await update(advertiser.apiKey, body).expect(200);
      expect(response.body.code).toBe(0);
      expect(response.body.message).toBe('success');
      return response.body.data;
    };

    it('should change only the name, keep everything else, and answer the fresh detail', async () => {
      const id = await create(advertiser.apiKey);
      const before = await detail(advertiser.apiKey, id);
      await sleep(5);
      const data = await updateOk({ campaignId: id, name: 'Renamed' });
      expect(data).toEqual({ ...before, name: 'Renamed', updatedAt: expect.any(Number) });
      expect(data.updatedAt).toBeGreaterThan(before.updatedAt);
      expect(data.createdAt).toBe(before.createdAt);
      expect(await detail(advertiser.apiKey, id)).toEqual(data);
    });

    it('should set, keep and remove the verification URL (null removes it; an invalid one is a 400)', async () => {
      const id = await create(advertiser.apiKey);
      expect((await detail(advertiser.apiKey, id)).verificationUrl).toBeNull();
      const set = await updateOk({ campaignId: id, verificationUrl: 'https://verify.example.com/check' });
      expect(set.verificationUrl).toBe('https://verify.example.com/check');
      const kept = await updateOk({ campaignId: id, name: 'Still verified' });
      expect(kept.verificationUrl).toBe('https://verify.example.com/check');
      for (const bad of ['ftp://verify.example.com/check', 'not a url', 42]) {
        const response = await update(advertiser.apiKey, { campaignId: id, verificationUrl: bad });
        expectValidationError(response, 'verificationUrl');
      }
      expect((await detail(advertiser.apiKey, id)).verificationUrl).toBe('https://verify.example.com/check');
      const removed = await updateOk({ campaignId: id, verificationUrl: null });
      expect(removed.verificationUrl).toBeNull();
      expect(await detail(advertiser.apiKey, id)).toEqual(removed);
    });

    it('should merge nested budget fields and keep the others', async () => {
      const id = await create(advertiser.apiKey);
      const before = await detail(advertiser.apiKey, id);
      const data = await updateOk({ campaignId: id, budget: { amount: 20.123456 } });
      expect(data.budget).toEqual({ ...before.budget, amount: 20.123456 });
      expect(data.bidding).toEqual(before.bidding);
      expect(await detail(advertiser.apiKey, id)).toEqual(data);
    });

    it('should merge the nested ad destination and keep actionType and the other ad fields', async () => {
      const id = await create(advertiser.apiKey, campaignBody({ ad: { destination: { actionType: 'open.miniapp', url: 'https://old.example' } } }));
      const before = await detail(advertiser.apiKey, id);
      const data = await updateOk({ campaignId: id, ad: { destination: { url: 'https://new.example/landing' } } });
      expect(data.ad).toEqual({ ...before.ad, destination: { actionType: 'open.miniapp', url: 'https://new.example/landing' } });
      expect(await detail(advertiser.apiKey, id)).toEqual(data);
    });

    it('should replace targeting arrays, normalise them, and keep the other targeting fields', async () => {
      const id = await create(advertiser.apiKey, campaignBody({ targeting: { includedRegions: ['US', 'DE'], messengerPremium: true } }));
      const before = await detail(advertiser.apiKey, id);
      expect(before.targeting.includedRegions).toEqual(['US', 'DE']);
      const data = await updateOk({ campaignId: id, targeting: { includedRegions: ['fr'] } });
      expect(data.targeting).toEqual({ ...before.targeting, includedRegions: ['FR'] });
      expect(data.targeting.includedLanguages).toEqual(['en']);
      expect(data.targeting.messengerPremium).toBe(true);
      const emptied = await updateOk({ campaignId: id, targeting: { includedRegions: [] } });
      expect(emptied.targeting.includedRegions).toEqual([]);
      expect(await detail(advertiser.apiKey, id)).toEqual(emptied);
    });

    it('should change bidding and keep the campaign status', async () => {
      const id = await create(advertiser.apiKey);
      await statusOk(advertiser.apiKey, id, 'paused');
      const data = await updateOk({ campaignId: id, bidding: { billingType: 'CPC', costPer: 0.123456 } });
      expect(data.bidding).toEqual({ billingType: 'CPC', costPer: 0.123456 });
      expect(data.campaignStatus).toBe('paused');
      expect(data.deliveryStatus).toBe('paused');
    });

    it('should validate the merged campaign: amount above the existing total is 400 budget.amount, nothing changed', async () => {
      const id = await create(advertiser.apiKey, campaignBody({ budget: { amount: 50, total: 1000 } }));
      const before = await detail(advertiser.apiKey, id);
      const response = await update(advertiser.apiKey, { campaignId: id, budget: { amount: 1000.5 }, name: 'Not applied' });
      expectValidationError(response, 'budget.amount');
      expect(await detail(advertiser.apiKey, id)).toEqual(before);
    });

    it('should validate the merged campaign: endTime before the existing startTime is 400 budget.endTime', async () => {
      const id = await create(advertiser.apiKey);
      const before = await detail(advertiser.apiKey, id);
      const response = await update(advertiser.apiKey, { campaignId: id, budget: { endTime: before.budget.startTime - 1 } });
      expectValidationError(response, 'budget.endTime');
      expect(await detail(advertiser.apiKey, id)).toEqual(before);
    });

    it('should validate the merged campaign: switching to CPM with a 6-decimal costPer is 400 bidding.costPer', async () => {
      const id = await create(advertiser.apiKey, campaignBody({ bidding: { billingType: 'CPC', costPer: 0.123456 } }));
      const before = await detail(advertiser.apiKey, id);
      const response = await update(advertiser.apiKey, { campaignId: id, bidding: { billingType: 'CPM' } });
      expectValidationError(response, 'bidding.costPer');
      expect(await detail(advertiser.apiKey, id)).toEqual(before);
    });

    it.each([
      ['bidding.billingType X', 'bidding.billingType', { bidding: { billingType: 'X' } }],
      ['budget.amount 0', 'budget.amount', { budget: { amount: 0 } }],
      ['empty name', 'name', { name: '' }],
      ['targeting.includedRegions [XX]', 'targeting.includedRegions', { targeting: { includedRegions: ['XX'] } }],
      ['ad.icon not a URL', 'ad.icon', { ad: { icon: 'icon.png' } }],
      ['ad.destination.actionType download', 'ad.destination.actionType', { ad: { destination: { actionType: 'download' } } }],
      ['budget not an object', 'budget', { budget: 5 }],
    ])('should refuse an update with %s with 400 naming %s, changing nothing', async (_label, field, patch) => {
      const id = await create(advertiser.apiKey);
      const before = await detail(advertiser.apiKey, id);
      const response = await update(advertiser.apiKey, { campaignId: id, ...patch });
      expectValidationError(response, field);
      expect(await detail(advertiser.apiKey, id)).toEqual(before);
    });

    it('should refuse an update without campaignId with 400', async () => {
      const response = await update(advertiser.apiKey, { name: 'x' });
      expectValidationError(response, 'campaignId');
    });

    it('should answer an update of an unknown campaign with the 404 envelope', async () => {
      const response = await update(advertiser.apiKey, { campaignId: UNKNOWN_ID, name: 'x' }).expect(404);
      expect(response.body).toEqual(NOT_FOUND);
    });

    it('should refuse to update an ended campaign with 409 and change nothing', async () => {
      const id = await create(advertiser.apiKey);
      await statusOk(advertiser.apiKey, id, 'end');
      const before = await detail(advertiser.apiKey, id);
      const response = await update(advertiser.apiKey, { campaignId: id, name: 'Too late' }).expect(409);
      expect(response.body).toEqual({ code: 409, message: expect.any(String), data: expect.any(Object) });
      expect(await detail(advertiser.apiKey, id)).toEqual(before);
    });

    it('should ignore status, owner and stats fields in an update body', async () => {
      const id = await create(advertiser.apiKey);
      const before = await detail(advertiser.apiKey, id);
      const data = await updateOk({
        campaignId: id,
        campaignStatus: 'ended',
        userId: 'someone-else',
        impressions: 5,
        cost: 100,
        createdAt: 1,
        unknown: { deep: true },
      });
      expect(data).toEqual({ ...before, updatedAt: expect.any(Number) });
      expect(data).not.toHaveProperty('unknown');
    });

    it('should let an admin update an advertiser campaign without changing its owner', async () => {
      const id = await create(advertiser.apiKey);
      const data = (await update(ADMIN_KEY, { campaignId: id, name: 'Admin edit' }).expect(200)).body.data;
      expect(data.name).toBe('Admin edit');
      expect(data.userId).toBe(advertiser.accountId);
    });
  });

  describe('concurrent requests', () => {
    it.each(['start', 'paused'])('should keep a campaign ended once end has answered success, even with %s requests racing it', async (action) => {
      const resurrected: string[] = [];
      for (let round = 0; round < 8; round++) {
        const id = await create(advertiser.apiKey);
        if (action === 'start') await statusOk(advertiser.apiKey, id, 'paused');
        const [end, ...others] = await Promise.all([
          status(advertiser.apiKey, id, 'end'),
          ...Array.from({ length: 4 }, () => status(advertiser.apiKey, id, action)),
        ]);
        expect(end.status).toBe(200);
        for (const other of others) expect([200, 409]).toContain(other.status);
        const { campaignStatus } = await detail(advertiser.apiKey, id);
        if (campaignStatus !== 'ended') resurrected.push(`${id}: ${campaignStatus}`);
      }
      expect(resurrected).toEqual([]);
    });

    it('should apply both of two concurrent partial updates (no lost update)', async () => {
      const lost: string[] = [];
      for (let round = 0; round < 8; round++) {
        const id = await create(advertiser.apiKey, campaignBody({ budget: { amount: 50, total: 1000 } }));
        const responses = await Promise.all([
          http()
            .post(UPDATE)
            .set('x-api-key', advertiser.apiKey)
            .send({ campaignId: id, name: `Renamed ${round}` }),
          http()
            .post(UPDATE)
            .set('x-api-key', advertiser.apiKey)
            .send({ campaignId: id, budget: { amount: 7.5 } }),
        ]);
        expect(responses.map((response) => response.status)).toEqual([200, 200]);
        const data = await detail(advertiser.apiKey, id);
        if (data.name !== `Renamed ${round}` || data.budget.amount !== 7.5) {
          lost.push(`${id}: name=${data.name} amount=${data.budget.amount}`);
        }
      }
      expect(lost).toEqual([]);
    });
  });
});

describe('Campaign review (CAMPAIGN_REVIEW=true)', () => {
  let t: TestApp;
  let advertiser: { accountId: string; apiKey: string };
  const { create, status, statusOk, list, expectState } = helpers(() => t);

  beforeAll(async () => {
    t = await startTestApp({ CAMPAIGN_REVIEW: 'true' });
    advertiser = await createAccount(t, ['advertiser'], 'Reviewed advertiser');
  });
  afterAll(() => t.close());

  it('should hold a new advertiser campaign inReview, in detail and list', async () => {
    const id = await create(advertiser.apiKey);
    await expectState(advertiser.apiKey, id, 'inReview', 'inReview');
    const item = ((await list(advertiser.apiKey)).campaigns as Body[]).find((entry) => entry.id === id);
    expect(item).toEqual(expect.objectContaining({ campaignStatus: 'inReview', deliveryStatus: 'inReview' }));
  });

  it('should walk the review: advertiser start 409, pause, start 409 again, admin approves, then free pause/start', async () => {
    const id = await create(advertiser.apiKey);

    const refused = await status(advertiser.apiKey, id, 'start').expect(409);
    expect(refused.body).toEqual({ code: 409, message: expect.any(String), data: expect.any(Object) });
    await expectState(advertiser.apiKey, id, 'inReview', 'inReview');

    await statusOk(advertiser.apiKey, id, 'paused');
    await expectState(advertiser.apiKey, id, 'paused', 'paused');

    const stillRefused = await status(advertiser.apiKey, id, 'start').expect(409);
    expect(stillRefused.body.code).toBe(409);
    await expectState(advertiser.apiKey, id, 'paused', 'paused');

    await statusOk(ADMIN_KEY, id, 'start');
    await expectState(advertiser.apiKey, id, 'onGoing', 'delivering');

    await statusOk(advertiser.apiKey, id, 'paused');
    await expectState(advertiser.apiKey, id, 'paused', 'paused');
    await statusOk(advertiser.apiKey, id, 'start');
    await expectState(advertiser.apiKey, id, 'onGoing', 'delivering');
  });

  it('should let an admin approve an inReview campaign directly with start', async () => {
    const id = await create(advertiser.apiKey);
    await statusOk(ADMIN_KEY, id, 'start');
    await expectState(advertiser.apiKey, id, 'onGoing', 'delivering');
  });

  it('should let the advertiser end an inReview campaign', async () => {
    const id = await create(advertiser.apiKey);
    await statusOk(advertiser.apiKey, id, 'end');
    await expectState(advertiser.apiKey, id, 'ended', 'ended');
    await status(ADMIN_KEY, id, 'start').expect(409);
  });

  it('should keep an update of an inReview campaign inReview', async () => {
    const id = await create(advertiser.apiKey);
    const response = await t.http().post(UPDATE).set('x-api-key', advertiser.apiKey).send({ campaignId: id, name: 'Edited' }).expect(200);
    expect(response.body.data.campaignStatus).toBe('inReview');
    await status(advertiser.apiKey, id, 'start').expect(409);
  });

  it('should start a campaign created by an admin as onGoing at once', async () => {
    const id = await create(ADMIN_KEY);
    await expectState(ADMIN_KEY, id, 'onGoing', 'delivering');
  });
});
