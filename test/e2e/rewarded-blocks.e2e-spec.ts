import { DataSource } from 'typeorm';
import { TEST_PROFILE } from '../support/profile';
import { BLOCK_BASE, BLOCK_NOT_FOUND, blockDetail, Body, expectValidationError, UNKNOWN_ID } from '../support/serving-fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { createAccount } from '../support/factories';

type Account = { accountId: string; apiKey: string };

describe(`Rewarded ad blocks: format, rewardUrl, minViewMs, dailyRewardCap [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let publisher: Account;
  let other: Account;

  beforeAll(async () => {
    t = await startTestApp();
    publisher = await createAccount(t, ['publisher'], 'Rewarded publisher');
    other = await createAccount(t, ['publisher'], 'Other publisher');
  });
  afterAll(() => t.close());

  const create = (body: Body, key = publisher.apiKey) => t.http().post(`${BLOCK_BASE}/create`).set('x-api-key', key).send(body);
  const update = (body: Body, key = publisher.apiKey) => t.http().post(`${BLOCK_BASE}/update`).set('x-api-key', key).send(body);
  const stored = async (adBlockId: string) =>
    (await t.app.get(DataSource).query('SELECT format, rewardUrl, minViewMs, dailyRewardCap FROM ad_blocks WHERE id = ?', [adBlockId]))[0];
  const blockCount = async () => Number((await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM ad_blocks'))[0].n);
  const settingsOf = (detail: Body) => ({
    format: detail.format,
    rewardUrl: detail.rewardUrl,
    minViewMs: detail.minViewMs,
    dailyRewardCap: detail.dailyRewardCap,
  });

  it('should default a block to a banner without reward URL, 10 s minimum view and 20 rewards a day', async () => {
    const adBlockId = (await create({ name: 'Plain' }).expect(200)).body.data.adBlockId;
    expect(settingsOf(await blockDetail(t, publisher.apiKey, adBlockId))).toEqual({ format: 'banner', rewardUrl: null, minViewMs: 10000, dailyRewardCap: 20 });
    expect(await stored(adBlockId)).toEqual({ format: 'banner', rewardUrl: null, minViewMs: 10000, dailyRewardCap: 20 });
  });

  it('should store the four settings at create and answer them in detail and list', async () => {
    const settings = { format: 'rewarded', rewardUrl: 'https://game.example.com/adnet/reward?app=7', minViewMs: 15000, dailyRewardCap: 5 };
    const adBlockId = (await create({ name: 'Extra life', ...settings }).expect(200)).body.data.adBlockId;
    expect(settingsOf(await blockDetail(t, publisher.apiKey, adBlockId))).toEqual(settings);
    expect(await stored(adBlockId)).toEqual(settings);
    const list = (await t.http().get(`${BLOCK_BASE}/list`).set('x-api-key', publisher.apiKey).expect(200)).body.data.adBlocks as Body[];
    expect(settingsOf(list.find((block) => block.adBlockId === adBlockId) as Body)).toEqual(settings);
    // the bounds are accepted
    const low = (await create({ name: 'Low', minViewMs: 5000, dailyRewardCap: 1 }).expect(200)).body.data.adBlockId;
    const high = (await create({ name: 'High', minViewMs: 60000, dailyRewardCap: 10000 }).expect(200)).body.data.adBlockId;
    expect(await stored(low)).toEqual(expect.objectContaining({ minViewMs: 5000, dailyRewardCap: 1 }));
    expect(await stored(high)).toEqual(expect.objectContaining({ minViewMs: 60000, dailyRewardCap: 10000 }));
  });

  it('should change only the settings given, remove the URL with null, and answer the detail', async () => {
    const adBlockId = (await create({ name: 'Spin', format: 'rewarded', rewardUrl: 'https://a.example.com/r', minViewMs: 8000 }).expect(200)).body.data
      .adBlockId;
    const changed = await update({ adBlockId, dailyRewardCap: 3 }).expect(200);
    expect(changed.body.data).toEqual(await blockDetail(t, publisher.apiKey, adBlockId));
    expect(settingsOf(changed.body.data)).toEqual({ format: 'rewarded', rewardUrl: 'https://a.example.com/r', minViewMs: 8000, dailyRewardCap: 3 });
    await update({ adBlockId, rewardUrl: 'http://b.example.com/hook', minViewMs: 30000 }).expect(200);
    expect(await stored(adBlockId)).toEqual({ format: 'rewarded', rewardUrl: 'http://b.example.com/hook', minViewMs: 30000, dailyRewardCap: 3 });
    await update({ adBlockId, rewardUrl: null, format: 'banner' }).expect(200);
    expect(await stored(adBlockId)).toEqual({ format: 'banner', rewardUrl: null, minViewMs: 30000, dailyRewardCap: 3 });
    expect((await update({ adBlockId, rewardUrl: 'https://c.example.com/r' }, other.apiKey)).body).toEqual(BLOCK_NOT_FOUND);
    expect(await stored(adBlockId)).toEqual(expect.objectContaining({ rewardUrl: null }));
  });

  const badSettings: [Body, string][] = [
    [{ format: 'video' }, 'format'],
    [{ format: null }, 'format'],
    [{ format: 1 }, 'format'],
    [{ rewardUrl: 'ftp://files.example.com/r' }, 'rewardUrl'],
    [{ rewardUrl: 'not a url' }, 'rewardUrl'],
    [{ rewardUrl: 42 }, 'rewardUrl'],
    [{ rewardUrl: `https://example.com/${'x'.repeat(2040)}` }, 'rewardUrl'],
    // the SSRF guard of verification URLs: addresses that are not public are refused at once
    [{ rewardUrl: 'http://127.0.0.1:8080/reward' }, 'rewardUrl'],
    [{ rewardUrl: 'http://localhost/reward' }, 'rewardUrl'],
    [{ rewardUrl: 'http://169.254.169.254/latest/meta-data' }, 'rewardUrl'],
    [{ rewardUrl: 'http://10.0.0.5/reward' }, 'rewardUrl'],
    [{ rewardUrl: 'http://[::1]/reward' }, 'rewardUrl'],
    [{ rewardUrl: 'http://[::ffff:192.168.1.1]/reward' }, 'rewardUrl'],
    [{ minViewMs: 4999 }, 'minViewMs'],
    [{ minViewMs: 60001 }, 'minViewMs'],
    [{ minViewMs: 7000.5 }, 'minViewMs'],
    [{ minViewMs: '10000' }, 'minViewMs'],
    [{ minViewMs: null }, 'minViewMs'],
    [{ dailyRewardCap: 0 }, 'dailyRewardCap'],
    [{ dailyRewardCap: -1 }, 'dailyRewardCap'],
    [{ dailyRewardCap: 10001 }, 'dailyRewardCap'],
    [{ dailyRewardCap: 2.5 }, 'dailyRewardCap'],
    [{ dailyRewardCap: null }, 'dailyRewardCap'],
  ];

  it.each(badSettings)('should refuse the create with %j with a 400 naming %s, storing nothing', async (bad, field) => {
    const before = await blockCount();
    expectValidationError(await create({ name: 'Bad', ...bad }), field);
    expect(await blockCount()).toBe(before);
  });

  it.each(badSettings)('should refuse the update with %j with a 400 naming %s, changing nothing', async (bad, field) => {
    const adBlockId = (await create({ name: 'Stable', format: 'rewarded', rewardUrl: 'https://ok.example.com/r' }).expect(200)).body.data.adBlockId;
    const before = await stored(adBlockId);
    expectValidationError(await update({ adBlockId, ...bad }), field);
    expect(await stored(adBlockId)).toEqual(before);
  });

  it('should check the input before the block: a bad URL on an unknown block is a 400, a good one a 404', async () => {
    expectValidationError(await update({ adBlockId: UNKNOWN_ID, rewardUrl: 'http://127.0.0.1/' }), 'rewardUrl');
    const unknown = await update({ adBlockId: UNKNOWN_ID, rewardUrl: 'https://ok.example.com/r' });
    expect([unknown.status, unknown.body]).toEqual([404, BLOCK_NOT_FOUND]);
  });

  it('should accept a private reward URL when VERIFICATION_ALLOW_PRIVATE=true (the last test: it restarts the app)', async () => {
    await t.close();
    t = await startTestApp({ VERIFICATION_ALLOW_PRIVATE: 'true' });
    const local = await createAccount(t, ['publisher'], 'Local publisher');
    const response = await create({ name: 'Local', rewardUrl: 'http://127.0.0.1:9/r' }, local.apiKey);
    expect(response.status).toBe(200);
    expect(await stored(response.body.data.adBlockId)).toEqual(expect.objectContaining({ rewardUrl: 'http://127.0.0.1:9/r' }));
  });
});
