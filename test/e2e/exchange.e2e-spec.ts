import { DataSource } from 'typeorm';
import { ManualClock } from '../../src/common/clock';
import { ExchangeIndexService } from '../../src/exchange/exchange-index.service';
import { ExchangeStatsWriterService } from '../../src/exchange/exchange-stats-writer.service';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { IP } from '../support/serving-helpers';
import { Body, DAY, expectValidationError, HOUR, MINUTE, newUser, UNKNOWN_ID } from '../support/serving-fixtures';
import { createAccount, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const BASE = '/api/v2/openapi/exchange/campaign';
const FETCH = '/api/v2/openapi/matching/exchange';
const CLICK = '/api/v2/openapi/exchange/event/report';
const SUCCESS = { status: 'success' };
const NOT_FOUND = {
  code: 404,
  message: 'exchangeCampaignId: exchange campaign not found',
  data: { errors: [{ field: 'exchangeCampaignId', message: 'exchange campaign not found' }] },
};
const OUT_NOT_FOUND = {
  code: 404,
  message: 'eventData.outExchangeCampaignId: exchange campaign not found',
  data: { errors: [{ field: 'eventData.outExchangeCampaignId', message: 'exchange campaign not found' }] },
};

function exchangeBody(overrides: Body = {}): Body {
  return {
    name: 'Puzzle Quest',
    icon: 'https://cdn.example.com/icon.png',
    image: 'https://cdn.example.com/banner.png',
    text: 'Solve 500 puzzles with friends',
    destination: { actionType: 'open.miniapp', url: 'https://t.example/puzzle' },
    ...overrides,
  };
}

/** Shared by both applications below. */
function helpers(getApp: () => TestApp) {
  const http = () => getApp().http();
  const create = async (key: string, overrides: Body = {}): Promise<string> => {
    const response = await http().post(`${BASE}/create`).set('x-api-key', key).send(exchangeBody(overrides));
    if (response.status !== 200) throw new Error(`create failed: ${JSON.stringify(response.body)}`);
    expect(Object.keys(response.body.data)).toEqual(['exchangeCampaignId']);
    return response.body.data.exchangeCampaignId;
  };
  const fetchRaw = (key: string, exchangeCampaignId: string, openId: string, options: { limit?: number; ip?: string; lang?: string } = {}) => {
    let request = http()
      .get(FETCH)
      .query({ exchangeCampaignId, openId, type: 'messenger', limit: options.limit ?? 9 })
      .set('x-api-key', key);
    if (options.ip) request = request.set('x-forwarded-for', options.ip);
    if (options.lang) request = request.set('accept-language', options.lang);
    return request;
  };
  const fetchEntries = async (key: string, exchangeCampaignId: string, openId: string, options: { limit?: number; ip?: string; lang?: string } = {}) => {
    const response = await fetchRaw(key, exchangeCampaignId, openId, options);
    if (response.status !== 200) throw new Error(`fetch failed: ${response.status} ${JSON.stringify(response.body)}`);
    expect(response.body.code).toBe(0);
    expect(response.body.message).toBe('success');
    expect(response.body.data.success).toBe(true);
    return response.body.data.exchangeCampaigns as Body[];
  };
  const fetchIds = async (key: string, exchangeCampaignId: string, openId: string, options: { limit?: number; ip?: string; lang?: string } = {}) =>
    (await fetchEntries(key, exchangeCampaignId, openId, options)).map((entry) => entry.inExchangeCampaignId as string);
  const clickRaw = (key: string, eventData: Body) => http().post(CLICK).set('x-api-key', key).send({ eventType: 'click', eventData });
  const clickEntry = (key: string, entry: Body, messengerUserId: string) =>
    clickRaw(key, { messengerUserId, inExchangeCampaignId: entry.inExchangeCampaignId, outExchangeCampaignId: entry.outExchangeCampaignId });
  /** Serves `inId` inside `outId` to `user` (it must be among the entries) and answers its entry. */
  const serve = async (key: string, outId: string, inId: string, user: string) => {
    const entries = await fetchEntries(key, outId, user);
    const entry = entries.find((e) => e.inExchangeCampaignId === inId);
    if (!entry) throw new Error(`${inId} not served in ${outId}: ${JSON.stringify(entries.map((e) => e.inExchangeCampaignId))}`);
    return entry;
  };
  const flush = () => getApp().app.get(ExchangeStatsWriterService).flush();
  const detail = async (id: string, key = ADMIN_KEY) => {
    const response = await http().get(`${BASE}/detail`).query({ exchangeCampaignId: id }).set('x-api-key', key).expect(200);
    return response.body.data as Body;
  };
  const ledger = async (id: string) => {
    await flush();
    const { impressions, impressionsSent, clicksSent, clicksReceived, balance } = await detail(id);
    return { impressions, impressionsSent, clicksSent, clicksReceived, balance };
  };
  const setStatus = async (key: string, exchangeCampaignId: string, status: string) =>
    http().post(`${BASE}/status`).set('x-api-key', key).send({ exchangeCampaignId, status });
  return { http, create, fetchRaw, fetchEntries, fetchIds, clickRaw, clickEntry, serve, flush, detail, ledger, setStatus };
}

describe('Exchange (endpoints 8, 9), exchange campaigns and the traffic ledger', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let partnerA: Account;
  let partnerB: Account;
  let advertiser: Account;
  let publisher: Account;
  const h = helpers(() => t);
  const { http, create, fetchRaw, fetchEntries, fetchIds, clickRaw, clickEntry, serve, detail, ledger, setStatus } = h;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true', EXCHANGE_DEBT_LIMIT: '2' }, { clock });
    ({ partnerA, partnerB, advertiser, publisher } = await createAccounts(t, {
      partnerA: ['partner', 'Partner A'],
      partnerB: ['partner', 'Partner B'],
      advertiser: ['advertiser', 'Advertiser'],
      publisher: ['publisher', 'Publisher'],
    }));
  });
  afterAll(() => t.close());

  /** Ends every exchange campaign not ended yet, so matching starts from a clean slate. */
  const endAll = async () => {
    const list = await http().get(`${BASE}/list`).query({ pageSize: 100 }).set('x-api-key', ADMIN_KEY).expect(200);
    for (const item of list.body.data.exchangeCampaigns as Body[]) {
      if (item.campaignStatus !== 'ended') expect((await setStatus(ADMIN_KEY, item.id, 'end')).status).toBe(200);
    }
    expect(list.body.data.total).toBeLessThanOrEqual(100);
  };
  const listTotal = async (key: string) => (await http().get(`${BASE}/list`).set('x-api-key', key).expect(200)).body.data.total as number;

  it('should document every exchange endpoint in Swagger with its request, answer and errors', async () => {
    const doc = (await http().get('/docs-json').expect(200)).body;
    const endpoints: [string, string, number[]][] = [
      ['get', FETCH, [400, 401, 403, 404, 409]],
      ['post', CLICK, [400, 401, 403, 404]],
      ['post', `${BASE}/create`, [400, 401, 403]],
      ['get', `${BASE}/list`, [400, 401, 403]],
      ['get', `${BASE}/detail`, [400, 401, 403, 404]],
      ['post', `${BASE}/update`, [400, 401, 403, 404, 409]],
      ['post', `${BASE}/status`, [400, 401, 403, 404, 409]],
      ['get', `${BASE}/stats`, [400, 401, 403, 404]],
    ];
    for (const [method, path, errors] of endpoints) {
      const operation = doc.paths[path]?.[method];
      expect({ path, documented: Boolean(operation) }).toEqual({ path, documented: true });
      expect(operation.tags).toEqual(['exchange']);
      expect(operation.security).toEqual([{ 'x-api-key': [] }]);
      expect(operation.responses['200'].content['application/json'].schema).toBeDefined();
      for (const status of errors) expect(operation.responses[String(status)]).toBeDefined();
      if (method === 'post') expect(operation.requestBody.content['application/json'].schema.$ref).toMatch(/^#\/components\/schemas\/Exchange/);
      else expect(operation.parameters.length).toBeGreaterThan(0);
    }
    expect(doc.paths[FETCH].get.parameters.map((p: Body) => p.name).sort()).toEqual(['exchangeCampaignId', 'limit', 'openId', 'type']);
    const entry = doc.components.schemas.ExchangeEntryDto;
    expect(Object.keys(entry.properties).sort()).toEqual(['destination', 'icon', 'image', 'inExchangeCampaignId', 'outExchangeCampaignId', 'text']);
    expect(entry.required.sort()).toEqual(['inExchangeCampaignId', 'outExchangeCampaignId']);
    expect(doc.components.schemas.ExchangeClickResultDto.properties.status.example).toBe('success');
    expect(doc.components.schemas.ExchangeCampaignCreateDto.required.sort()).toEqual(['destination', 'icon', 'name', 'text']);
  });

  describe('exchange campaign management', () => {
    it('should store a created campaign and answer it in detail with an empty ledger', async () => {
      const before = clock.now();
      const id = await create(partnerA.apiKey, {
        name: 'Quest',
        targeting: { includedRegions: ['us', 'de'], excludedLanguages: ['ZH'] },
      });
      const response = await http().get(`${BASE}/detail`).query({ exchangeCampaignId: id }).set('x-api-key', partnerA.apiKey).expect(200);
      expect(response.body).toEqual({
        code: 0,
        message: 'success',
        data: {
          exchangeCampaignId: id,
          id,
          userId: partnerA.accountId,
          name: 'Quest',
          icon: 'https://cdn.example.com/icon.png',
          image: 'https://cdn.example.com/banner.png',
          text: 'Solve 500 puzzles with friends',
          destination: { actionType: 'open.miniapp', url: 'https://t.example/puzzle' },
          targeting: { includedRegions: ['US', 'DE'], excludedRegions: [], includedLanguages: [], excludedLanguages: ['zh'] },
          campaignStatus: 'onGoing',
          impressions: 0,
          impressionsSent: 0,
          clicksSent: 0,
          clicksReceived: 0,
          balance: 0,
          ctr: 0,
          conversions: 0,
          cr: 0,
          createdAt: expect.any(Number),
          updatedAt: expect.any(Number),
        },
      });
      expect(response.body.data.createdAt).toBeGreaterThanOrEqual(before);
    });

    it('should store a campaign without image as image null and ignore unknown fields', async () => {
      const body = exchangeBody({ surprise: 'x', clicksSent: 99 });
      delete body.image;
      const response = await http().post(`${BASE}/create`).set('x-api-key', partnerA.apiKey).send(body).expect(200);
      const stored = await detail(response.body.data.exchangeCampaignId, partnerA.apiKey);
      expect(stored.image).toBeNull();
      expect(stored.clicksSent).toBe(0);
      expect(stored).not.toHaveProperty('surprise');
    });

    const createCases: [string, string, (b: Body) => void][] = [
      ['name missing', 'name', (b) => delete b.name],
      ['name blank', 'name', (b) => (b.name = '   ')],
      ['name too long', 'name', (b) => (b.name = 'n'.repeat(201))],
      ['name a number', 'name', (b) => (b.name = 5)],
      ['icon missing', 'icon', (b) => delete b.icon],
      ['icon not a URL', 'icon', (b) => (b.icon = 'icon.png')],
      ['icon ftp', 'icon', (b) => (b.icon = 'ftp://cdn.example.com/i.png')],
      ['image not a URL', 'image', (b) => (b.image = 'nope')],
      ['image a number', 'image', (b) => (b.image = 3)],
      ['text missing', 'text', (b) => delete b.text],
      ['text empty', 'text', (b) => (b.text = '')],
      ['text too long', 'text', (b) => (b.text = 't'.repeat(1001))],
      ['destination missing', 'destination', (b) => delete b.destination],
      ['destination a string', 'destination', (b) => (b.destination = 'https://x.example')],
      ['destination.actionType unknown', 'destination.actionType', (b) => (b.destination.actionType = 'teleport')],
      ['destination.url missing', 'destination.url', (b) => delete b.destination.url],
      ['destination.url javascript', 'destination.url', (b) => (b.destination.url = 'javascript:alert(1)')],
      ['targeting an array', 'targeting', (b) => (b.targeting = ['US'])],
      ['targeting.includedRegions a bad code', 'targeting.includedRegions', (b) => (b.targeting = { includedRegions: ['USA'] })],
      ['targeting.excludedRegions a string', 'targeting.excludedRegions', (b) => (b.targeting = { excludedRegions: 'US' })],
      ['targeting.includedLanguages a bad code', 'targeting.includedLanguages', (b) => (b.targeting = { includedLanguages: ['english'] })],
      ['targeting.excludedLanguages a bad code', 'targeting.excludedLanguages', (b) => (b.targeting = { excludedLanguages: ['xx'] })],
    ];
    it.each(createCases)('should answer 400 naming the field and store nothing for %s', async (_case, field, mutate) => {
      const before = await listTotal(partnerB.apiKey);
      const body = exchangeBody();
      mutate(body);
      expectValidationError(await http().post(`${BASE}/create`).set('x-api-key', partnerB.apiKey).send(body), field);
      expect(await listTotal(partnerB.apiKey)).toBe(before);
    });

    it('should answer 400 for a body that is not a JSON object or not JSON', async () => {
      expectValidationError(await http().post(`${BASE}/create`).set('x-api-key', partnerB.apiKey).send([exchangeBody()]), 'body');
      const malformed = await http().post(`${BASE}/create`).set('x-api-key', partnerB.apiKey).set('content-type', 'application/json').send('{"name":');
      expect([malformed.status, malformed.body.code]).toEqual([400, 400]);
    });

    it("should list a partner's own campaigns newest first with paging, and all of them for an admin", async () => {
      const lister = await createAccount(t, ['partner'], 'Lister');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await create(lister.apiKey, { name: `L${i}` }));
      const page = async (query: Body, key = lister.apiKey) => (await http().get(`${BASE}/list`).query(query).set('x-api-key', key).expect(200)).body;
      const first = await page({});
      expect(first.data).toEqual(expect.objectContaining({ total: 5, current: 1, pageSize: 20, success: true }));
      expect((first.data.exchangeCampaigns as Body[]).map((item) => item.id)).toEqual([...ids].reverse());
      expect(first.data.exchangeCampaigns[0]).toEqual(await detail(ids[4], lister.apiKey));
      const second = await page({ current: 2, pageSize: 2 });
      expect((second.data.exchangeCampaigns as Body[]).map((item) => item.name)).toEqual(['L2', 'L1']);
      expect((await page({ current: 4, pageSize: 2 })).data.exchangeCampaigns).toEqual([]);
      const admin = await page({ pageSize: 100 }, ADMIN_KEY);
      const adminIds = (admin.data.exchangeCampaigns as Body[]).map((item) => item.id);
      for (const id of ids) expect(adminIds).toContain(id);
      expect(admin.data.total).toBeGreaterThan(5);
      const other = await page({ pageSize: 100 }, partnerB.apiKey);
      for (const id of ids) expect((other.data.exchangeCampaigns as Body[]).map((item) => item.id)).not.toContain(id);
    });

    it.each([
      ['current 0', 'current', { current: 0 }],
      ['current -1', 'current', { current: -1 }],
      ['current abc', 'current', { current: 'abc' }],
      ['current 1.5', 'current', { current: 1.5 }],
      ['pageSize 0', 'pageSize', { pageSize: 0 }],
      ['pageSize 101', 'pageSize', { pageSize: 101 }],
      ['pageSize abc', 'pageSize', { pageSize: 'abc' }],
    ])('should answer 400 naming the field for list %s', async (_case, field, query) => {
      expectValidationError(await http().get(`${BASE}/list`).query(query).set('x-api-key', partnerA.apiKey), field);
    });

    it("should answer another partner's campaign exactly like an unknown id (404) on detail, update, status and stats", async () => {
      const id = await create(partnerA.apiKey, { name: 'private' });
      const calls = [
        (exchangeCampaignId: string) => http().get(`${BASE}/detail`).query({ exchangeCampaignId }).set('x-api-key', partnerB.apiKey),
        (exchangeCampaignId: string) => http().post(`${BASE}/update`).set('x-api-key', partnerB.apiKey).send({ exchangeCampaignId, name: 'stolen' }),
        (exchangeCampaignId: string) => setStatus(partnerB.apiKey, exchangeCampaignId, 'paused'),
        (exchangeCampaignId: string) => http().get(`${BASE}/stats`).query({ exchangeCampaignId }).set('x-api-key', partnerB.apiKey),
      ];
      for (const call of calls) {
        const foreign = await call(id);
        const unknown = await call(UNKNOWN_ID);
        expect([foreign.status, unknown.status]).toEqual([404, 404]);
        expect(foreign.body).toEqual(NOT_FOUND);
        expect(unknown.body).toEqual(NOT_FOUND);
      }
      expect(await detail(id)).toEqual(expect.objectContaining({ name: 'private', campaignStatus: 'onGoing' }));
      expect((await detail(id, ADMIN_KEY)).userId).toBe(partnerA.accountId);
    });

    it('should answer 400 naming exchangeCampaignId when it is missing or empty on detail, update, status and stats', async () => {
      expectValidationError(await http().get(`${BASE}/detail`).set('x-api-key', partnerA.apiKey), 'exchangeCampaignId');
      expectValidationError(await http().get(`${BASE}/detail`).query({ exchangeCampaignId: '' }).set('x-api-key', partnerA.apiKey), 'exchangeCampaignId');
      expectValidationError(await http().post(`${BASE}/update`).set('x-api-key', partnerA.apiKey).send({ name: 'x' }), 'exchangeCampaignId');
      expectValidationError(await http().post(`${BASE}/status`).set('x-api-key', partnerA.apiKey).send({ status: 'paused' }), 'exchangeCampaignId');
      expectValidationError(await http().get(`${BASE}/stats`).set('x-api-key', partnerA.apiKey), 'exchangeCampaignId');
    });

    it('should update the fields given, merge destination and targeting, and remove the image with null', async () => {
      const id = await create(partnerA.apiKey, { targeting: { includedRegions: ['US'], includedLanguages: ['en'] } });
      const response = await http()
        .post(`${BASE}/update`)
        .set('x-api-key', partnerA.apiKey)
        .send({ exchangeCampaignId: id, text: 'New text', destination: { url: 'https://t.example/new' }, targeting: { includedRegions: ['gb'] } })
        .expect(200);
      const expected = expect.objectContaining({
        name: 'Puzzle Quest',
        text: 'New text',
        image: 'https://cdn.example.com/banner.png',
        destination: { actionType: 'open.miniapp', url: 'https://t.example/new' },
        targeting: { includedRegions: ['GB'], excludedRegions: [], includedLanguages: ['en'], excludedLanguages: [] },
      });
      expect(response.body.data).toEqual(expected);
      expect(await detail(id)).toEqual(expected);
      await http().post(`${BASE}/update`).set('x-api-key', partnerA.apiKey).send({ exchangeCampaignId: id, image: null }).expect(200);
      expect((await detail(id)).image).toBeNull();
    });

    it.each([
      ['name blank', 'name', { name: ' ' }],
      ['icon not a URL', 'icon', { icon: 'x' }],
      ['image not a URL', 'image', { image: 'x' }],
      ['text a number', 'text', { text: 1 }],
      ['destination.actionType unknown', 'destination.actionType', { destination: { actionType: 'x' } }],
      ['destination a number', 'destination', { destination: 1 }],
      ['targeting.includedRegions a bad code', 'targeting.includedRegions', { targeting: { includedRegions: ['ZZZ'] } }],
    ])('should answer 400 naming the field and change nothing for an update with %s', async (_case, field, change) => {
      const id = await create(partnerA.apiKey, { name: 'unchanged' });
      const before = await detail(id);
      expectValidationError(
        await http()
          .post(`${BASE}/update`)
          .set('x-api-key', partnerA.apiKey)
          .send({ exchangeCampaignId: id, ...change }),
        field,
      );
      expect(await detail(id)).toEqual(before);
    });

    it('should pause, resume and end a campaign; end is final and idempotent, and an ended one cannot be updated', async () => {
      const id = await create(partnerA.apiKey);
      const statusOf = async () => (await detail(id)).campaignStatus;
      for (const [action, expected] of [
        ['paused', 'paused'],
        ['paused', 'paused'],
        ['start', 'onGoing'],
        ['start', 'onGoing'],
        ['end', 'ended'],
        ['end', 'ended'],
      ]) {
        const response = await setStatus(partnerA.apiKey, id, action);
        expect([response.status, response.body]).toEqual([200, { code: 0, message: 'success', data: { result: 'success' } }]);
        expect(await statusOf()).toBe(expected);
      }
      for (const action of ['start', 'paused']) {
        const response = await setStatus(partnerA.apiKey, id, action);
        expect([response.status, response.body.code]).toEqual([409, 409]);
        expect(response.body.message).toContain('status');
        expect(await statusOf()).toBe('ended');
      }
      const update = await http().post(`${BASE}/update`).set('x-api-key', partnerA.apiKey).send({ exchangeCampaignId: id, name: 'again' });
      expect([update.status, update.body.code]).toEqual([409, 409]);
      expect((await detail(id)).name).toBe('Puzzle Quest');
    });

    it.each([
      ['status missing', {}],
      ['status resume', { status: 'resume' }],
      ['status a number', { status: 1 }],
    ])('should answer 400 naming status for %s', async (_case, body) => {
      const id = await create(partnerA.apiKey);
      expectValidationError(
        await http()
          .post(`${BASE}/status`)
          .set('x-api-key', partnerA.apiKey)
          .send({ exchangeCampaignId: id, ...body }),
        'status',
      );
      expect((await detail(id)).campaignStatus).toBe('onGoing');
    });

    it('should answer 401 without a key and 403 for advertiser and publisher keys on every exchange endpoint', async () => {
      const id = await create(partnerA.apiKey);
      const calls = [
        (key?: string) => withKey(http().post(`${BASE}/create`).send(exchangeBody()), key),
        (key?: string) => withKey(http().get(`${BASE}/list`), key),
        (key?: string) => withKey(http().get(`${BASE}/detail`).query({ exchangeCampaignId: id }), key),
        (key?: string) => withKey(http().post(`${BASE}/update`).send({ exchangeCampaignId: id, name: 'x' }), key),
        (key?: string) => withKey(http().post(`${BASE}/status`).send({ exchangeCampaignId: id, status: 'paused' }), key),
        (key?: string) => withKey(http().get(`${BASE}/stats`).query({ exchangeCampaignId: id }), key),
        (key?: string) => withKey(http().get(FETCH).query({ exchangeCampaignId: id, openId: 'u', type: 'messenger', limit: 1 }), key),
        (key?: string) =>
          withKey(
            http()
              .post(CLICK)
              .send({ eventType: 'click', eventData: { messengerUserId: 'u', inExchangeCampaignId: id, outExchangeCampaignId: id } }),
            key,
          ),
      ];
      for (const call of calls) {
        const missing = await call();
        expect([missing.status, missing.body.code]).toEqual([401, 401]);
        for (const key of [advertiser.apiKey, publisher.apiKey]) {
          const forbidden = await call(key);
          expect([forbidden.status, forbidden.body.code]).toEqual([403, 403]);
        }
      }
      expect(await detail(id)).toEqual(expect.objectContaining({ name: 'Puzzle Quest', campaignStatus: 'onGoing' }));
    });
  });

  describe('matching (endpoint 8)', () => {
    let own: string;
    let ownSecond: string;
    let withImage: string;
    let withoutImage: string;
    let paused: string;
    let ended: string;
    let partnerC: Account;

    beforeAll(async () => {
      await endAll();
      partnerC = await createAccount(t, ['partner'], 'Partner C');
      own = await create(partnerA.apiKey, { name: 'own' });
      ownSecond = await create(partnerA.apiKey, { name: 'own second' });
      withImage = await create(partnerB.apiKey, { name: 'with image' });
      const body = { name: 'without image' } as Body;
      withoutImage = await create(partnerC.apiKey, body);
      await http().post(`${BASE}/update`).set('x-api-key', partnerC.apiKey).send({ exchangeCampaignId: withoutImage, image: null }).expect(200);
      paused = await create(partnerB.apiKey, { name: 'paused' });
      ended = await create(partnerC.apiKey, { name: 'ended' });
      await setStatus(partnerB.apiKey, paused, 'paused');
      await setStatus(partnerC.apiKey, ended, 'end');
    });

    it("should answer other partners' ongoing campaigns as entries, never the caller's own nor paused or ended ones", async () => {
      const user = newUser();
      const response = await fetchRaw(partnerA.apiKey, own, user);
      expect(response.status).toBe(200);
      expect(response.body.code).toBe(0);
      expect(Object.keys(response.body.data).sort()).toEqual(['exchangeCampaigns', 'success']);
      const entries = response.body.data.exchangeCampaigns as Body[];
      expect(entries.map((entry) => entry.inExchangeCampaignId).sort()).toEqual([withImage, withoutImage].sort());
      const byId = Object.fromEntries(entries.map((entry) => [entry.inExchangeCampaignId, entry]));
      expect(byId[withImage]).toEqual({
        inExchangeCampaignId: withImage,
        outExchangeCampaignId: own,
        icon: 'https://cdn.example.com/icon.png',
        image: 'https://cdn.example.com/banner.png',
        text: 'Solve 500 puzzles with friends',
        destination: { actionType: 'open.miniapp', url: 'https://t.example/puzzle' },
      });
      expect(byId[withoutImage]).not.toHaveProperty('image');
      expect(byId[withoutImage].outExchangeCampaignId).toBe(own);
      // the same owner's other campaign neither
      expect((await fetchIds(partnerA.apiKey, ownSecond, newUser())).sort()).toEqual([withImage, withoutImage].sort());
      // and from B's side: A's two campaigns and C's, never B's own
      expect((await fetchIds(partnerB.apiKey, withImage, newUser())).sort()).toEqual([own, ownSecond, withoutImage].sort());
    });

    it('should count each entry answered as one impression of the promoted campaign and one sent by the out campaign', async () => {
      const before = { own: await ledger(own), withImage: await ledger(withImage), withoutImage: await ledger(withoutImage) };
      await fetchEntries(partnerA.apiKey, own, newUser());
      await fetchEntries(partnerA.apiKey, own, newUser(), { limit: 1 });
      const after = { own: await ledger(own), withImage: await ledger(withImage), withoutImage: await ledger(withoutImage) };
      expect(after.own.impressionsSent - before.own.impressionsSent).toBe(3);
      expect(after.own.impressions).toBe(before.own.impressions);
      expect(after.withImage.impressions - before.withImage.impressions + after.withoutImage.impressions - before.withoutImage.impressions).toBe(3);
      expect(after.withImage.impressionsSent).toBe(before.withImage.impressionsSent);
    });

    it('should answer at most limit entries', async () => {
      expect(await fetchEntries(partnerB.apiKey, withImage, newUser(), { limit: 2 })).toHaveLength(2);
      expect(await fetchEntries(partnerB.apiKey, withImage, newUser(), { limit: 1 })).toHaveLength(1);
    });

    it('should let a paused campaign fetch, promote it again once started, and refuse an ended one with 409', async () => {
      expect(await fetchIds(partnerB.apiKey, paused, newUser())).toEqual(expect.arrayContaining([own, withoutImage]));
      await setStatus(partnerB.apiKey, paused, 'start');
      expect(await fetchIds(partnerA.apiKey, own, newUser())).toContain(paused);
      await setStatus(partnerB.apiKey, paused, 'paused');
      expect(await fetchIds(partnerA.apiKey, own, newUser())).not.toContain(paused);
      const response = await fetchRaw(partnerC.apiKey, ended, newUser());
      expect([response.status, response.body.code]).toEqual([409, 409]);
      expect(response.body.message).toContain('exchangeCampaignId');
    });

    it('should match region targeting on the client IP and language targeting on Accept-Language', async () => {
      const partnerT = await createAccount(t, ['partner'], 'Targeting partner');
      const usOnly = await create(partnerT.apiKey, { name: 'US only', targeting: { includedRegions: ['US'] } });
      const notDe = await create(partnerT.apiKey, { name: 'not DE', targeting: { excludedRegions: ['DE'] } });
      const german = await create(partnerT.apiKey, { name: 'German', targeting: { includedLanguages: ['de'] } });
      const notEnglish = await create(partnerT.apiKey, { name: 'not English', targeting: { excludedLanguages: ['en'] } });
      const targeted = [usOnly, notDe, german, notEnglish];
      const seen = async (options: { ip?: string; lang?: string }) =>
        (await fetchIds(partnerA.apiKey, own, newUser(), options)).filter((id) => targeted.includes(id)).sort();
      expect(await seen({ ip: IP.US, lang: 'en-US,en;q=0.9' })).toEqual([usOnly, notDe].sort());
      expect(await seen({ ip: IP.DE, lang: 'de-DE' })).toEqual([german, notEnglish].sort());
      expect(await seen({ ip: IP.GB, lang: 'fr' })).toEqual([notDe, notEnglish].sort());
      // unknown region and language: include lists never match, exclude lists do not exclude
      expect(await seen({})).toEqual([notDe, notEnglish].sort());
      for (const id of targeted) await setStatus(partnerT.apiKey, id, 'end');
    });

    describe('bad input and ownership', () => {
      const valid = (): Body => ({ exchangeCampaignId: own, openId: 'user-1', type: 'messenger', limit: '3' });
      const cases: [string, string, (q: Body) => void][] = [
        ['exchangeCampaignId missing', 'exchangeCampaignId', (q) => delete q.exchangeCampaignId],
        ['exchangeCampaignId empty', 'exchangeCampaignId', (q) => (q.exchangeCampaignId = '')],
        ['exchangeCampaignId too long', 'exchangeCampaignId', (q) => (q.exchangeCampaignId = 'x'.repeat(65))],
        ['openId missing', 'openId', (q) => delete q.openId],
        ['openId empty', 'openId', (q) => (q.openId = '')],
        ['openId too long', 'openId', (q) => (q.openId = 'u'.repeat(129))],
        ['type missing', 'type', (q) => delete q.type],
        ['type whatsapp (telegram is an alias of messenger, §14)', 'type', (q) => (q.type = 'whatsapp')],
        ['limit missing', 'limit', (q) => delete q.limit],
        ['limit 0', 'limit', (q) => (q.limit = '0')],
        ['limit 10', 'limit', (q) => (q.limit = '10')],
        ['limit -1', 'limit', (q) => (q.limit = '-1')],
        ['limit 2.5', 'limit', (q) => (q.limit = '2.5')],
        ['limit abc', 'limit', (q) => (q.limit = 'abc')],
      ];
      it.each(cases)('should answer 400 naming the field and count nothing for %s', async (_case, field, mutate) => {
        const before = await ledger(own);
        const query = valid();
        mutate(query);
        expectValidationError(await http().get(FETCH).query(query).set('x-api-key', partnerA.apiKey), field);
        expect(await ledger(own)).toEqual(before);
      });

      it("should answer another partner's campaign exactly like an unknown one (404), and let an admin fetch for any", async () => {
        const foreign = await fetchRaw(partnerB.apiKey, own, newUser());
        const unknown = await fetchRaw(partnerB.apiKey, UNKNOWN_ID, newUser());
        expect([foreign.status, unknown.status]).toEqual([404, 404]);
        expect(foreign.body).toEqual(NOT_FOUND);
        expect(unknown.body).toEqual(NOT_FOUND);
        const admin = await fetchEntries(ADMIN_KEY, own, newUser());
        expect(admin.every((entry) => entry.outExchangeCampaignId === own)).toBe(true);
        expect(admin.map((entry) => entry.inExchangeCampaignId)).not.toContain(ownSecond);
      });
    });

    it('should answer an empty list with success when no other partner has an ongoing campaign', async () => {
      const loner = await createAccount(t, ['partner'], 'Loner');
      const mine = await create(loner.apiKey);
      await create(loner.apiKey, { name: 'mine too' });
      await endAll();
      const response = await http().post(`${BASE}/create`).set('x-api-key', loner.apiKey).send(exchangeBody()).expect(200);
      const fresh = response.body.data.exchangeCampaignId;
      expect((await fetchRaw(loner.apiKey, fresh, newUser())).body).toEqual({ code: 0, message: 'success', data: { success: true, exchangeCampaigns: [] } });
      expect((await fetchRaw(loner.apiKey, mine, newUser())).status).toBe(409);
    });
  });

  describe('clicks (endpoint 9) and the ledger', () => {
    let a1: string;
    let b1: string;
    let pA: Account;
    let pB: Account;

    beforeAll(async () => {
      await endAll();
      pA = await createAccount(t, ['partner'], 'Swap A');
      pB = await createAccount(t, ['partner'], 'Swap B');
      a1 = await create(pA.apiKey, { name: 'A1' });
      b1 = await create(pB.apiKey, { name: 'B1' });
    });

    describe('bad input', () => {
      const valid = (): Body => ({
        eventType: 'click',
        eventData: { messengerUserId: 'user-1', inExchangeCampaignId: UNKNOWN_ID, outExchangeCampaignId: UNKNOWN_ID },
      });
      const cases: [string, string, (b: Body) => void][] = [
        ['eventType missing', 'eventType', (b) => delete b.eventType],
        ['eventType view', 'eventType', (b) => (b.eventType = 'view')],
        ['eventData missing', 'eventData', (b) => delete b.eventData],
        ['eventData null', 'eventData', (b) => (b.eventData = null)],
        ['eventData a string', 'eventData', (b) => (b.eventData = 'click')],
        ['eventData an array', 'eventData', (b) => (b.eventData = [])],
      ];
      for (const field of ['messengerUserId', 'inExchangeCampaignId', 'outExchangeCampaignId']) {
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
        expectValidationError(await http().post(CLICK).set('x-api-key', pA.apiKey).send(body), field);
      });
    });

    it("should answer another partner's out campaign exactly like an unknown one (404) and count nothing", async () => {
      const user = newUser();
      const entry = await serve(pA.apiKey, a1, b1, user);
      const foreign = await clickEntry(pB.apiKey, entry, user);
      const unknown = await clickRaw(pB.apiKey, { messengerUserId: user, inExchangeCampaignId: b1, outExchangeCampaignId: UNKNOWN_ID });
      expect([foreign.status, unknown.status]).toEqual([404, 404]);
      expect(foreign.body).toEqual(OUT_NOT_FOUND);
      expect(unknown.body).toEqual(OUT_NOT_FOUND);
      expect((await ledger(a1)).clicksSent).toBe(0);
      expect((await ledger(b1)).clicksReceived).toBe(0);
    });

    it('should refuse clicks without a matching served entry with 400 and count nothing', async () => {
      const other = await create(pA.apiKey, { name: 'A2' });
      const user = newUser();
      const entry = await serve(pA.apiKey, a1, b1, user);
      const refused = [
        // never served to this user
        await clickEntry(pA.apiKey, entry, newUser()),
        // served in another out campaign
        await clickRaw(pA.apiKey, { messengerUserId: user, inExchangeCampaignId: b1, outExchangeCampaignId: other }),
        // unknown promoted campaign
        await clickRaw(pA.apiKey, { messengerUserId: user, inExchangeCampaignId: UNKNOWN_ID, outExchangeCampaignId: a1 }),
        // the caller's own campaign is never an entry
        await clickRaw(pA.apiKey, { messengerUserId: user, inExchangeCampaignId: other, outExchangeCampaignId: a1 }),
        // in and out swapped
        await clickRaw(pB.apiKey, { messengerUserId: user, inExchangeCampaignId: a1, outExchangeCampaignId: b1 }),
      ];
      for (const response of refused) {
        expect([response.status, response.body.code, response.body.message]).toEqual([400, 400, 'no matching impression']);
        expect(response.body.data).toEqual({ errors: [{ field: 'eventData', message: 'no matching impression' }] });
      }
      expect(await ledger(a1)).toEqual(expect.objectContaining({ clicksSent: 0, clicksReceived: 0 }));
      expect(await ledger(b1)).toEqual(expect.objectContaining({ clicksSent: 0, clicksReceived: 0 }));
      await setStatus(pA.apiKey, other, 'end');
    });

    it('should credit the out campaign and debit the in campaign before answering {status: "success"}, once per impression', async () => {
      // the exchange writer's committed clicks, as /metrics shows them (adnet_counter_write_clicks)
      const committedClicks = async () => {
        const text = (await http().get('/metrics').set('x-api-key', ADMIN_KEY).expect(200)).text;
        return Number(/^adnet_counter_write_clicks_sum\{writer="exchange"\} (\S+)$/m.exec(text)?.[1]);
      };
      const committedBefore = await committedClicks();
      const user = newUser();
      const entry = await serve(pA.apiKey, a1, b1, user);
      const response = await clickEntry(pA.apiKey, entry, user);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(SUCCESS);
      // durable before the answer: visible without a flush
      expect(await detail(a1)).toEqual(expect.objectContaining({ clicksSent: 1, clicksReceived: 0, balance: 1 }));
      expect(await detail(b1)).toEqual(expect.objectContaining({ clicksSent: 0, clicksReceived: 1, balance: -1 }));

      // retries at any time of the impression's 24 hours answer success and are not counted again
      for (const step of [0, 5 * MINUTE, 6 * MINUTE, 23 * HOUR - 11 * MINUTE]) {
        clock.advance(step);
        expect((await clickEntry(pA.apiKey, entry, user)).body).toEqual(SUCCESS);
      }
      expect((await ledger(a1)).clicksSent).toBe(1);
      expect((await ledger(b1)).clicksReceived).toBe(1);
      expect((await committedClicks()) - committedBefore).toBe(1);
    });

    it('should bind clicks to an entry served within the last 24 hours only', async () => {
      const user = newUser();
      const entry = await serve(pB.apiKey, b1, a1, user);
      const before = await ledger(b1);
      clock.advance(24 * HOUR);
      const late = await clickEntry(pB.apiKey, entry, user);
      expect([late.status, late.body.message]).toEqual([400, 'no matching impression']);
      expect(await ledger(b1)).toEqual(before);
    });

    it('should count a click on an entry served before its campaign was paused', async () => {
      const user = newUser();
      const entry = await serve(pA.apiKey, a1, b1, user);
      const before = { a: await ledger(a1), b: await ledger(b1) };
      await setStatus(pB.apiKey, b1, 'paused');
      expect((await clickEntry(pA.apiKey, entry, user)).body).toEqual(SUCCESS);
      expect((await ledger(a1)).clicksSent).toBe(before.a.clicksSent + 1);
      expect((await ledger(b1)).clicksReceived).toBe(before.b.clicksReceived + 1);
      await setStatus(pB.apiKey, b1, 'start');
    });

    it('should answer the balances of two partners swapping traffic after a known sequence of clicks', async () => {
      const swapA = await createAccount(t, ['partner'], 'Ledger A');
      const swapB = await createAccount(t, ['partner'], 'Ledger B');
      await endAll();
      const x = await create(swapA.apiKey, { name: 'X' });
      const y = await create(swapB.apiKey, { name: 'Y' });
      const from = clock.now() - HOUR;
      // X shows Y to 5 users, 4 click; Y shows X to 3 users, 1 clicks, and one clicks twice (counted once)
      const clickInX: string[] = [];
      for (let i = 0; i < 5; i++) {
        const user = newUser('x');
        const entry = await serve(swapA.apiKey, x, y, user);
        if (i < 4) {
          expect((await clickEntry(swapA.apiKey, entry, user)).body).toEqual(SUCCESS);
          clickInX.push(user);
        }
      }
      for (let i = 0; i < 3; i++) {
        const user = newUser('y');
        const entry = await serve(swapB.apiKey, y, x, user);
        if (i === 0) {
          expect((await clickEntry(swapB.apiKey, entry, user)).body).toEqual(SUCCESS);
          expect((await clickEntry(swapB.apiKey, entry, user)).body).toEqual(SUCCESS);
        }
      }
      const expectedX = { impressions: 3, impressionsSent: 5, clicksSent: 4, clicksReceived: 1, balance: 3 };
      const expectedY = { impressions: 5, impressionsSent: 3, clicksSent: 1, clicksReceived: 4, balance: -3 };
      expect(await ledger(x)).toEqual(expectedX);
      expect(await ledger(y)).toEqual(expectedY);
      const pick = (item: Body) => ({
        impressions: item.impressions,
        impressionsSent: item.impressionsSent,
        clicksSent: item.clicksSent,
        clicksReceived: item.clicksReceived,
        balance: item.balance,
      });
      const listA = await http().get(`${BASE}/list`).set('x-api-key', swapA.apiKey).expect(200);
      expect((listA.body.data.exchangeCampaigns as Body[]).map(pick)).toEqual([expectedX]);
      expect(listA.body.data.exchangeCampaigns[0].ctr).toBeCloseTo(1 / 3, 10);
      const listB = await http().get(`${BASE}/list`).set('x-api-key', swapB.apiKey).expect(200);
      expect((listB.body.data.exchangeCampaigns as Body[]).map(pick)).toEqual([expectedY]);

      // the series sum to the same totals, hourly and daily
      for (const granularity of ['hour', 'day']) {
        for (const [id, expected, key] of [
          [x, expectedX, swapA.apiKey],
          [y, expectedY, swapB.apiKey],
        ] as const) {
          const response = await http()
            .get(`${BASE}/stats`)
            .query({ exchangeCampaignId: id, from, to: clock.now() + HOUR, granularity })
            .set('x-api-key', key)
            .expect(200);
          const series = response.body.data.series as Body[];
          const bucket = granularity === 'hour' ? HOUR : DAY;
          expect(series.length).toBe(Math.ceil((clock.now() + HOUR - (from - (from % bucket))) / bucket));
          for (const point of series) {
            expect(Object.keys(point).sort()).toEqual(['balance', 'clicksReceived', 'clicksSent', 'conversions', 'impressions', 'impressionsSent', 'time']);
            expect(point.time % bucket).toBe(0);
          }
          const sum = (field: string) => series.reduce((total, point) => total + point[field], 0);
          expect({
            impressions: sum('impressions'),
            impressionsSent: sum('impressionsSent'),
            clicksSent: sum('clicksSent'),
            clicksReceived: sum('clicksReceived'),
            balance: sum('balance'),
          }).toEqual(expected);
        }
      }

      // the click rows behind the ledger
      const rows: Body[] = await t.app
        .get(DataSource)
        .query('SELECT inExchangeCampaignId, outExchangeCampaignId, messengerUserId FROM exchange_clicks WHERE outExchangeCampaignId IN (?, ?)', [x, y]);
      expect(
        rows
          .filter((row) => row.outExchangeCampaignId === x)
          .map((row) => row.messengerUserId)
          .sort(),
      ).toEqual([...clickInX].sort());
      expect(rows.filter((row) => row.outExchangeCampaignId === y)).toHaveLength(1);
      expect(rows.every((row) => row.inExchangeCampaignId === (row.outExchangeCampaignId === x ? y : x))).toBe(true);
    });
  });

  describe('series bad input', () => {
    let id: string;
    beforeAll(async () => {
      id = await create(partnerA.apiKey, { name: 'series' });
    });
    const series = (query: Body) =>
      http()
        .get(`${BASE}/stats`)
        .query({ exchangeCampaignId: id, ...query })
        .set('x-api-key', partnerA.apiKey);

    it.each([
      ['granularity week', 'granularity', { granularity: 'week' }],
      ['from abc', 'from', { from: 'abc' }],
      ['to abc', 'to', { to: 'abc' }],
      ['from 1.5', 'from', { from: '1.5' }],
      ['from -1', 'from', { from: '-1' }],
      ['from equal to to', 'from', { from: '1767225600000', to: '1767225600000' }],
      ['from after to', 'from', { from: '1767225600001', to: '1767225600000' }],
      ['more than 5000 hourly buckets', 'from', { from: '0', to: '1767225600000', granularity: 'hour' }],
    ])('should answer 400 naming the field for %s', async (_case, field, query) => {
      expectValidationError(await series(query), field);
    });

    it('should default to the last 7 days, daily, zero-filled, ending now', async () => {
      const dayStart = (at: number) => at - (at % DAY);
      const before = dayStart(clock.now());
      const response = await series({}).expect(200);
      const after = dayStart(clock.now());
      const points = response.body.data.series as Body[];
      expect(points.length).toBeGreaterThanOrEqual(7);
      // The manual clock follows real time: the request may straddle midnight.
      expect([before, after]).toContain(points[points.length - 1].time);
      expect(points.every((p) => p.impressions === 0 && p.clicksSent === 0 && p.clicksReceived === 0 && p.balance === 0)).toBe(true);
    });
  });

  describe('ranking by the ledger', () => {
    it('should put creditors first, move partners as the ledger changes, and give far-in-debt partners one slot at most', async () => {
      await endAll();
      const [host, creditor, even, debtor1, debtor2] = await Promise.all(
        ['host', 'creditor', 'even', 'debtor 1', 'debtor 2'].map((name) => createAccount(t, ['partner'], `Rank ${name}`)),
      );
      const hostId = await create(host.apiKey, { name: 'host' });
      const creditorId = await create(creditor.apiKey, { name: 'creditor' });
      const evenId = await create(even.apiKey, { name: 'even' });
      const debtor1Id = await create(debtor1.apiKey, { name: 'debtor 1' });
      const debtor2Id = await create(debtor2.apiKey, { name: 'debtor 2' });
      const index = t.app.get(ExchangeIndexService);
      const order = async () => {
        await index.refresh();
        return fetchIds(host.apiKey, hostId, newUser());
      };
      // all even: oldest first
      expect(await order()).toEqual([creditorId, evenId, debtor1Id, debtor2Id]);

      /** `clicks` users click the entry of `inId` shown in `outId`. */
      const send = async (key: string, outId: string, inId: string, clicks: number) => {
        for (let i = 0; i < clicks; i++) {
          const user = newUser('rank');
          expect((await clickEntry(key, await serve(key, outId, inId, user), user)).body).toEqual(SUCCESS);
        }
      };
      // creditor sends 3 clicks to host's campaign (+3); debtor 1 receives 2 from host (-2, at the limit of 2)
      await send(creditor.apiKey, creditorId, hostId, 3);
      await send(host.apiKey, hostId, debtor1Id, 2);
      expect(await order()).toEqual([creditorId, evenId, debtor2Id, debtor1Id]);
      expect((await detail(debtor1Id)).balance).toBe(-2);

      // debtor 2 receives 3 (-3) and debtor 1 one more (-3): both far in debt, one slot between them
      await send(host.apiKey, hostId, debtor2Id, 3);
      await send(host.apiKey, hostId, debtor1Id, 1);
      expect(await order()).toEqual([creditorId, evenId, debtor1Id]);
      // without other partners a far-in-debt one still gets its slot, and only one
      await setStatus(creditor.apiKey, creditorId, 'paused');
      await setStatus(even.apiKey, evenId, 'paused');
      expect(await order()).toEqual([debtor1Id]);
      // paying back: debtor 2 sends 4 clicks (balance +1) and leads
      await setStatus(creditor.apiKey, creditorId, 'start');
      await setStatus(even.apiKey, evenId, 'start');
      await send(debtor2.apiKey, debtor2Id, creditorId, 4);
      expect((await detail(debtor2Id)).balance).toBe(1);
      expect((await detail(creditorId)).balance).toBe(-1);
      expect(await order()).toEqual([debtor2Id, evenId, creditorId, debtor1Id]);
      expect(await fetchIds(host.apiKey, hostId, newUser(), { limit: 2 })).toEqual([debtor2Id, evenId]);
    });

    it("should rank by the partner's balance over all its campaigns, also ended ones", async () => {
      await endAll();
      const [host, rich, poor] = await Promise.all(['host', 'rich', 'poor'].map((name) => createAccount(t, ['partner'], `Sum ${name}`)));
      const hostId = await create(host.apiKey);
      const poorOld = await create(poor.apiKey, { name: 'poor old' });
      const richOld = await create(rich.apiKey, { name: 'rich old' });
      // rich's old campaign sends 2 clicks to poor's: rich +2, poor -2 (not far: limit 2)
      for (let i = 0; i < 2; i++) {
        const user = newUser('sum');
        await clickEntry(rich.apiKey, await serve(rich.apiKey, richOld, poorOld, user), user);
      }
      await setStatus(rich.apiKey, richOld, 'end');
      await setStatus(poor.apiKey, poorOld, 'end');
      const poorNew = await create(poor.apiKey, { name: 'poor new' });
      const richNew = await create(rich.apiKey, { name: 'rich new' });
      await t.app.get(ExchangeIndexService).refresh();
      expect(await fetchIds(host.apiKey, hostId, newUser())).toEqual([richNew, poorNew]);
      expect([(await detail(richNew)).balance, (await detail(poorNew)).balance]).toEqual([0, 0]);
    });
  });

  describe('destination macros (docs/CONTRACT.md §20)', () => {
    it('should fill {campaign_id} with the promoted campaign and {ad_block_id} with the out one, {click_id} empty; the stored URL keeps them', async () => {
      await endAll();
      const [host, guest] = await Promise.all(['host', 'guest'].map((name) => createAccount(t, ['partner'], `Macros ${name}`)));
      const out = await create(host.apiKey, { name: 'macros out' });
      const template = 'https://t.example/puzzle?cid={click_id}&src={campaign_id}&via={ad_block_id}&ref={campaign_id}';
      const promoted = await create(guest.apiKey, { name: 'macros in', destination: { actionType: 'open.miniapp', url: template } });
      const plain = await create(guest.apiKey, { name: 'plain' });
      const entries = Object.fromEntries((await fetchEntries(host.apiKey, out, newUser('macros'))).map((entry) => [entry.inExchangeCampaignId, entry]));
      expect(entries[promoted].destination).toEqual({
        actionType: 'open.miniapp',
        url: `https://t.example/puzzle?cid=&src=${promoted}&via=${out}&ref=${promoted}`,
      });
      expect(entries[plain].destination).toEqual({ actionType: 'open.miniapp', url: 'https://t.example/puzzle' });
      // the guest's own view, and the other direction: its entry of the host's campaign
      expect((await detail(promoted, guest.apiKey)).destination).toEqual({ actionType: 'open.miniapp', url: template });
      const back = await fetchEntries(guest.apiKey, promoted, newUser('macros'));
      expect(back.map((entry) => [entry.inExchangeCampaignId, entry.destination.url])).toEqual([[out, 'https://t.example/puzzle']]);
      // a click on the filled entry counts as any other
      const user = newUser('macros');
      const entry = await serve(host.apiKey, out, promoted, user);
      expect((await clickEntry(host.apiKey, entry, user)).body).toEqual(SUCCESS);
      expect(await ledger(promoted)).toEqual(expect.objectContaining({ impressions: 2, clicksReceived: 1 }));
    });
  });

  describe('exclusion of clicked entries (production)', () => {
    it('should not offer a clicked entry to that user for 10 minutes, in any out campaign, and still to others', async () => {
      await endAll();
      const [p1, p2, p3] = await Promise.all(['1', '2', '3'].map((n) => createAccount(t, ['partner'], `Excl ${n}`)));
      const host = await create(p1.apiKey, { name: 'host' });
      const hostSecond = await create(p1.apiKey, { name: 'host second' });
      const clicked = await create(p2.apiKey, { name: 'clicked' });
      const other = await create(p3.apiKey, { name: 'other' });
      // p2 sends 2 clicks to p3 first, so that its entry ranks above p3's even after the user's click
      for (let i = 0; i < 2; i++) {
        const sender = newUser('excl-send');
        expect((await clickEntry(p2.apiKey, await serve(p2.apiKey, clicked, other, sender), sender)).body).toEqual(SUCCESS);
      }
      const user = newUser('excl');
      expect(await fetchIds(p1.apiKey, host, newUser())).toEqual([clicked, other]);
      const entry = await serve(p1.apiKey, host, clicked, user);
      expect((await clickEntry(p1.apiKey, entry, user)).body).toEqual(SUCCESS);

      expect(await fetchIds(p1.apiKey, host, user)).toEqual([other]);
      expect(await fetchIds(p1.apiKey, hostSecond, user)).toEqual([other]);
      expect(await fetchIds(p3.apiKey, other, user)).toEqual([host, hostSecond]);
      expect(await fetchIds(p1.apiKey, host, newUser())).toEqual([clicked, other]);
      // limit 1 still finds the next entry when the best one is excluded
      expect(await fetchIds(p1.apiKey, host, user, { limit: 1 })).toEqual([other]);

      // The manual clock also follows real time, so "just before" keeps a margin of a few seconds.
      clock.advance(10 * MINUTE - 5000);
      expect(await fetchIds(p1.apiKey, host, user)).toEqual([other]);
      clock.advance(5000);
      expect(await fetchIds(p1.apiKey, host, user)).toEqual([clicked, other]);
      expect(await ledger(clicked)).toEqual(expect.objectContaining({ clicksSent: 2, clicksReceived: 1, balance: 1 }));
    });
  });
});

function withKey<T extends { set: (name: string, value: string) => T }>(request: T, key?: string): T {
  return key ? request.set('x-api-key', key) : request;
}

// Its own application, started after the one above is closed: both profiles rebuild the schema at start, and on
// MySQL two applications would share (and wipe) one database.
describe('Exchange in the test environment (APP_ENV=test)', () => {
  let t: TestApp;
  const h = helpers(() => t);
  beforeAll(async () => {
    t = await startTestApp({ APP_ENV: 'test' });
  });
  afterAll(() => t.close());

  it('should offer a clicked entry to that user again at once, a new impression with one click of its own', async () => {
    const p1 = await createAccount(t, ['partner']);
    const p2 = await createAccount(t, ['partner']);
    const host = await h.create(p1.apiKey);
    const promoted = await h.create(p2.apiKey);
    const user = newUser();
    const entry = await h.serve(p1.apiKey, host, promoted, user);
    expect((await h.clickEntry(p1.apiKey, entry, user)).body).toEqual(SUCCESS);
    expect(await h.fetchIds(p1.apiKey, host, user)).toEqual([promoted]);
    expect((await h.clickEntry(p1.apiKey, entry, user)).body).toEqual(SUCCESS);
    expect((await h.clickEntry(p1.apiKey, entry, user)).body).toEqual(SUCCESS);
    expect(await h.ledger(host)).toEqual(expect.objectContaining({ clicksSent: 2, impressionsSent: 2 }));
    expect(await h.ledger(promoted)).toEqual(expect.objectContaining({ clicksReceived: 2, impressions: 2, balance: -2 }));
  });
});
