import { randomBytes } from 'node:crypto';
import { closeTestRedis, deleteTestRedisKeys, TEST_PROFILE, testRedis, testRedisKeys } from '../support/profile';
import { batchStatus, countRows, PROFILE_BATCH, PROFILE_CSV, storedProfile, waitForBatch } from '../support/profile-helpers';
import { expectValidationError, newUser, UNKNOWN_ID } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAccount } from '../support/factories';

type Account = { accountId: string; apiKey: string };

describe(`Profile uploads name their publisher: publisherId [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let publisher: Account;
  let advertiser: Account;

  beforeAll(async () => {
    t = await startTestApp();
    publisher = await createAccount(t, ['publisher'], 'Named publisher');
    advertiser = await createAccount(t, ['advertiser'], 'Not a publisher');
  });
  afterAll(() => t.close());

  const postJson = (key: string, list: unknown[], publisherId?: string) =>
    t
      .http()
      .post(PROFILE_BATCH)
      .query(publisherId === undefined ? {} : { publisherId })
      .set('x-api-key', key)
      .send({ list });
  const postCsv = (key: string, text: string, publisherId?: string) =>
    t
      .http()
      .post(PROFILE_CSV)
      .query(publisherId === undefined ? {} : { publisherId })
      .set('x-api-key', key)
      .set('content-type', 'text/csv')
      .send(text);
  const counts = async () => ({ profiles: await countRows(t, 'profiles'), batches: await countRows(t, 'profile_batches') });

  it("should write an admin's JSON batch into the named publisher's profiles, and show its status to both", async () => {
    const user = newUser('admin-json');
    const response = await postJson(ADMIN_KEY, [{ messengerUserId: user, isPremium: true }], publisher.accountId).expect(200);
    const batchId = response.body.data.batchId;
    expect((await waitForBatch(t, ADMIN_KEY, batchId)).status).toBe('done');
    expect(await batchStatus(t, publisher.apiKey, batchId)).toEqual(expect.objectContaining({ batchId, status: 'done', total: 1, processed: 1 }));
    expect(await storedProfile(t, user)).toEqual(expect.objectContaining({ isPremium: true }));
    expect(await storedProfile(t, user, publisher.accountId)).toEqual(expect.objectContaining({ isPremium: true }));
  });

  it("should import an admin's CSV into the named publisher's profiles", async () => {
    const user = newUser('admin-csv');
    const response = await postCsv(ADMIN_KEY, `messengerUserId,walletAddress,walletClassify\n${user},EQ-csv,primary\n`, publisher.accountId).expect(200);
    const [batchId] = response.body.data.batchIds;
    expect((await waitForBatch(t, publisher.apiKey, batchId)).status).toBe('done');
    expect(await storedProfile(t, user, publisher.accountId)).toEqual(expect.objectContaining({ walletAddress: 'EQ-csv', walletClassify: 'primary' }));
  });

  it('should let a publisher name itself', async () => {
    const user = newUser('self');
    const batchId = (await postJson(publisher.apiKey, [{ messengerUserId: user, isHighValue: true }], publisher.accountId).expect(200)).body.data.batchId;
    await waitForBatch(t, publisher.apiKey, batchId);
    expect(await storedProfile(t, user, publisher.accountId)).toEqual(expect.objectContaining({ isHighValue: true }));
  });

  it.each([
    ['an unknown account', () => UNKNOWN_ID, 404],
    ['an account without the publisher role', () => advertiser.accountId, 400],
    ['an empty id', () => '', 400],
    ['an over-long id', () => 'x'.repeat(65), 400],
  ])("should refuse an admin's upload naming %s, storing nothing", async (_case, publisherId, status) => {
    const before = await counts();
    for (const response of [
      await postJson(ADMIN_KEY, [{ messengerUserId: newUser('refused'), isPremium: true }], publisherId()),
      await postCsv(ADMIN_KEY, `messengerUserId,walletAddress,walletClassify\n${newUser('refused')},EQ,evm\n`, publisherId()),
    ]) {
      if (status === 400) expectValidationError(response, 'publisherId');
      else
        expect([response.status, response.body]).toEqual([
          404,
          {
            code: 404,
            message: 'publisherId: publisher account not found',
            data: { errors: [{ field: 'publisherId', message: 'publisher account not found' }] },
          },
        ]);
    }
    expect(await counts()).toEqual(before);
  });

  (TEST_PROFILE === 'mysql' ? it : it.skip)(
    "should keep per-publisher keys in Redis and drop the former global store's keys at the first start after the upgrade",
    async () => {
      const prefix = `adnet-e2e:legacy-${randomBytes(4).toString('hex')}:`;
      const redis = testRedis({ keyPrefix: prefix });
      try {
        // what a process of the former version left: its built marker and global keys
        await Promise.all([redis.set('profmeta:built', '1'), redis.set('prof:legacy-1', '1||'), redis.set('prof:legacy-2', '3|en|')]);
        await redis.set('other:kept', 'x');
        const user = newUser('redis');
        const batchId = (await postJson(publisher.apiKey, [{ messengerUserId: user, isPremium: true }]).expect(200)).body.data.batchId;
        await waitForBatch(t, publisher.apiKey, batchId);

        const upgraded = await startTestApp({ REDIS_PREFIX: prefix }, { dropSchema: false });
        try {
          expect(await Promise.all(['prof:legacy-1', 'prof:legacy-2', 'profmeta:built'].map((key) => redis.exists(key)))).toEqual([0, 0, 0]);
          expect(await redis.get('other:kept')).toBe('x');
          // the rebuild wrote the publisher's profile under its own key
          expect(await redis.get(`pprof:${publisher.accountId}:${user}`)).toBe('1||');
          expect(await redis.exists('profmeta:built:per-publisher')).toBe(1);
        } finally {
          await upgraded.close();
        }
      } finally {
        await deleteTestRedisKeys(redis, prefix, await testRedisKeys(redis, prefix));
        await closeTestRedis(redis);
      }
    },
  );
});
