import { createHmac, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TEST_PROFILE } from '../support/profile';
import { FETCH } from '../support/serving-helpers';
import { BLOCK_BASE, BLOCK_NOT_FOUND, blockDetail, Body, expectValidationError, newUser, UNKNOWN_ID } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

describe(`Ad block settings: requireSignedViewer and ad/block/update [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let publisher: Account;
  let other: Account;
  let advertiser: Account;

  beforeAll(async () => {
    t = await startTestApp();
    ({ publisher, other, advertiser } = await createAccounts(t, {
      publisher: ['publisher', 'Settings publisher'],
      other: ['publisher', 'Other publisher'],
      advertiser: ['advertiser', 'Settings advertiser'],
    }));
  });
  afterAll(() => t.close());

  const create = (body: Body, key = publisher.apiKey) => t.http().post(`${BLOCK_BASE}/create`).set('x-api-key', key).send(body);
  const update = (body: Body, key = publisher.apiKey) => t.http().post(`${BLOCK_BASE}/update`).set('x-api-key', key).send(body);
  const blockCount = async () => Number((await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM ad_blocks'))[0].n);
  const unsignedFetch = (adBlockId: string) =>
    t.http().get(FETCH).query({ adBlockId, openId: newUser(), type: 'messenger', limit: 1 }).set('x-api-key', publisher.apiKey);

  it('should store requireSignedViewer at create (default false) and answer it in detail and list', async () => {
    const plain = (await create({ name: 'Plain' }).expect(200)).body.data.adBlockId;
    const signed = (await create({ name: 'Signed', requireSignedViewer: true }).expect(200)).body.data.adBlockId;
    const explicit = (await create({ name: 'Explicitly open', requireSignedViewer: false }).expect(200)).body.data.adBlockId;
    expect(await blockDetail(t, publisher.apiKey, plain)).toEqual({
      adBlockId: plain,
      userId: publisher.accountId,
      name: 'Plain',
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
    expect((await blockDetail(t, publisher.apiKey, signed)).requireSignedViewer).toBe(true);
    expect((await blockDetail(t, publisher.apiKey, explicit)).requireSignedViewer).toBe(false);
    const list = (await t.http().get(`${BLOCK_BASE}/list`).set('x-api-key', publisher.apiKey).expect(200)).body.data.adBlocks as Body[];
    expect(list.slice(0, 3).map((block) => [block.adBlockId, block.requireSignedViewer])).toEqual([
      [explicit, false],
      [signed, true],
      [plain, false],
    ]);
    // the rule is live at once: the signed block refuses an unsigned request, the plain one serves it
    expect((await unsignedFetch(signed)).status).toBe(401);
    expect((await unsignedFetch(plain)).status).toBe(200);
  });

  it('should change only the fields given and answer the detail shape', async () => {
    const adBlockId = (await create({ name: 'Before' }).expect(200)).body.data.adBlockId;
    const renamed = await update({ adBlockId, name: 'After' }).expect(200);
    expect(renamed.body).toEqual({ code: 0, message: 'success', data: await blockDetail(t, publisher.apiKey, adBlockId) });
    expect(renamed.body.data).toEqual(expect.objectContaining({ adBlockId, name: 'After', requireSignedViewer: false }));

    const signed = await update({ adBlockId, requireSignedViewer: true, ignored: 'field' }).expect(200);
    expect(signed.body.data).toEqual(expect.objectContaining({ adBlockId, name: 'After', requireSignedViewer: true }));
    expect(signed.body.data).not.toHaveProperty('ignored');
    expect((await unsignedFetch(adBlockId)).status).toBe(401);

    const unchanged = await update({ adBlockId }).expect(200);
    expect(unchanged.body.data).toEqual(await blockDetail(t, publisher.apiKey, adBlockId));

    await update({ adBlockId, requireSignedViewer: false }).expect(200);
    expect((await unsignedFetch(adBlockId)).status).toBe(200);
    expect((await blockDetail(t, publisher.apiKey, adBlockId)).requireSignedViewer).toBe(false);
  });

  it("should answer another publisher's block like an unknown one, a key without the publisher role 403, no key 401", async () => {
    const adBlockId = (await create({ name: 'Mine' }).expect(200)).body.data.adBlockId;
    const foreign = await update({ adBlockId, requireSignedViewer: true }, other.apiKey);
    const unknown = await update({ adBlockId: UNKNOWN_ID, requireSignedViewer: true });
    expect([foreign.status, foreign.body]).toEqual([404, BLOCK_NOT_FOUND]);
    expect([unknown.status, unknown.body]).toEqual([404, BLOCK_NOT_FOUND]);
    expect([(await update({ adBlockId, name: 'x' }, advertiser.apiKey)).status]).toEqual([403]);
    const anonymous = await t.http().post(`${BLOCK_BASE}/update`).send({ adBlockId, name: 'x' });
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 401]);
    // an admin may change any block
    await update({ adBlockId, name: 'By admin' }, ADMIN_KEY).expect(200);
    expect(await blockDetail(t, publisher.apiKey, adBlockId)).toEqual(expect.objectContaining({ name: 'By admin', requireSignedViewer: false }));
  });

  it.each([
    [{}, 'adBlockId'],
    [{ adBlockId: '' }, 'adBlockId'],
    [{ adBlockId: 5 }, 'adBlockId'],
    [{ adBlockId: 'x'.repeat(65) }, 'adBlockId'],
    [{ requireSignedViewer: 'yes' }, 'requireSignedViewer'],
    [{ requireSignedViewer: 1 }, 'requireSignedViewer'],
    [{ requireSignedViewer: null }, 'requireSignedViewer'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: null }, 'name'],
    [{ name: 'n'.repeat(201) }, 'name'],
  ])('should refuse the update %j with a 400 naming %s, changing nothing', async (change, field) => {
    const adBlockId = (await create({ name: 'Stable', requireSignedViewer: true }).expect(200)).body.data.adBlockId;
    const before = await blockDetail(t, publisher.apiKey, adBlockId);
    const body = field === 'adBlockId' ? { requireSignedViewer: false, ...change } : { adBlockId, ...change };
    expectValidationError(await update(body), field);
    expect(await blockDetail(t, publisher.apiKey, adBlockId)).toEqual(before);
  });

  it.each([
    [{ name: 'Bad flag', requireSignedViewer: 'true' }, 'requireSignedViewer'],
    [{ name: 'Bad flag', requireSignedViewer: null }, 'requireSignedViewer'],
    [{ requireSignedViewer: true }, 'name'],
  ])('should refuse the create %j with a 400 naming %s, storing nothing', async (body, field) => {
    const before = await blockCount();
    expectValidationError(await create(body), field);
    expect(await blockCount()).toBe(before);
  });

  it('should let browsers send the viewer header cross-origin (CORS preflight)', async () => {
    const response = await t
      .http()
      .options(FETCH)
      .set('origin', 'https://miniapp.example.com')
      .set('access-control-request-method', 'GET')
      .set('access-control-request-headers', 'x-api-key,x-adnet-viewer')
      .expect(204);
    expect(response.headers['access-control-allow-headers']).toMatch(/x-adnet-viewer/);
  });

  (TEST_PROFILE === 'mysql' ? it : it.skip)('should make another process apply a changed rule at once, although it had the block in memory', async () => {
    // two more processes on one Redis (one change channel): `writer` changes the block, `reader` serves it
    const shared = { REDIS_PREFIX: `adnet-e2e:blocks-${randomBytes(4).toString('hex')}:` };
    const writer = await startTestApp(shared, { dropSchema: false });
    const reader = await startTestApp(shared, { dropSchema: false });
    try {
      const adBlockId = (await create({ name: 'Shared' }).expect(200)).body.data.adBlockId;
      const fetchOnSecond = (header?: string) => {
        const openId = 'shared-user';
        const request = reader.http().get(FETCH).query({ adBlockId, openId, type: 'messenger', limit: 1 }).set('x-api-key', publisher.apiKey);
        return header === undefined ? request : request.set('x-adnet-viewer', header);
      };
      expect((await fetchOnSecond()).status).toBe(200);
      await writer.http().post(`${BLOCK_BASE}/update`).set('x-api-key', publisher.apiKey).send({ adBlockId, requireSignedViewer: true }).expect(200);
      const deadline = Date.now() + 2000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) {
        status = (await fetchOnSecond()).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(status).toBe(401);
      const secret = (await t.http().get('/api/v2/openapi/account/me').set('x-api-key', publisher.apiKey).expect(200)).body.data.webhookSecret;
      const expires = Date.now() + 60_000;
      const signature = createHmac('sha256', secret).update(`shared-user.${expires}`).digest('hex');
      expect((await fetchOnSecond(`shared-user.${expires}.${signature}`)).status).toBe(200);
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
