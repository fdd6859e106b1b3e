import { createHmac, randomBytes } from 'node:crypto';
import { ManualClock } from '../../../src/common/clock';
import { ServingFastLane } from '../../../src/serving/serving.fast-lane';
import { TEST_PROFILE } from '../../support/profile';
import { countRows, PROFILE_STATUS, storedProfile, uploadAndApply, uploadBatch, waitForBatch } from '../../support/profile-helpers';
import { FETCH } from '../../support/serving-helpers';
import {
  blockDetail,
  Body,
  clickAd,
  createServable,
  endAllCampaigns,
  fetchIds,
  flushedCampaign,
  HOUR,
  newUser,
  UNKNOWN_ID,
} from '../../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';
import { createAdBlock, openCampaign, createAccounts } from '../../support/factories';

type Account = { accountId: string; apiKey: string };
const sorted = (ids: string[]) => [...ids].sort();
const ME = '/api/v2/openapi/account/me';

/**
 * Attacks on publishers' own data, replayed black-box: one publisher writing another's users (profiles are per
 * publisher), and a copied publisher key fetching ads for made-up users on a block that requires signed viewers.
 * Requests come from the loopback client (no forwarded address): a browser User-Agent and no data-centre address.
 */
describe(`Abuse: publishers' own data [${TEST_PROFILE}]`, () => {
  const clock = new ManualClock();
  let t: TestApp;
  let advertiser: Account;
  let publisherA: Account;
  let publisherB: Account;

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
    await endAllCampaigns(t);
    ({ advertiser, publisherA, publisherB } = await createAccounts(t, {
      advertiser: ['advertiser', 'Advertiser'],
      publisherA: ['publisher', 'Publisher A'],
      publisherB: ['publisher', 'Publisher B'],
    }));
  });
  afterAll(() => t.close());

  describe('profiles belong to the publisher that uploaded them', () => {
    let blockA: string;
    let blockB: string;
    const campaigns: Record<string, string> = {};

    beforeAll(async () => {
      await endAllCampaigns(t);
      blockA = await createAdBlock(t, publisherA.apiKey, 'A block');
      blockB = await createAdBlock(t, publisherB.apiKey, 'B block');
      campaigns.premium = await createServable(t, advertiser.apiKey, openCampaign({ name: 'premium', targeting: { messengerPremium: true } }, clock.now()));
      campaigns.wallet = await createServable(t, advertiser.apiKey, openCampaign({ name: 'wallet', targeting: { userLinkedWallet: true } }, clock.now()));
    });

    const served = (key: string, block: string, user: string) => fetchIds(t, key, block, user).then(sorted);
    const names = (...keys: string[]) => sorted(keys.map((key) => campaigns[key]));

    it("should leave A's targeting as it was when B uploads the same users with other flags, and apply B's only on B's blocks", async () => {
      const [both, premiumOnly, bOnly] = [newUser('both'), newUser('prem'), newUser('bonly')];
      await uploadAndApply(t, publisherA.apiKey, [
        { messengerUserId: both, isPremium: true, walletAddress: 'EQ-a', walletClassify: 'primary' },
        { messengerUserId: premiumOnly, isPremium: true },
      ]);
      expect(await served(publisherA.apiKey, blockA, both)).toEqual(names('premium', 'wallet'));
      expect(await served(publisherA.apiKey, blockA, premiumOnly)).toEqual(names('premium'));
      // A's profiles are not B's: on B's block these users are unknown
      expect(await served(publisherB.apiKey, blockB, both)).toEqual([]);

      await uploadAndApply(t, publisherB.apiKey, [
        { messengerUserId: both, isPremium: false, walletAddress: null },
        { messengerUserId: premiumOnly, isPremium: false },
        { messengerUserId: bOnly, isPremium: true, walletAddress: '0xb', walletClassify: 'evm' },
      ]);
      expect(await served(publisherA.apiKey, blockA, both)).toEqual(names('premium', 'wallet'));
      expect(await served(publisherA.apiKey, blockA, premiumOnly)).toEqual(names('premium'));
      expect(await served(publisherA.apiKey, blockA, bOnly)).toEqual([]);
      expect(await served(publisherB.apiKey, blockB, both)).toEqual([]);
      expect(await served(publisherB.apiKey, blockB, premiumOnly)).toEqual([]);
      expect(await served(publisherB.apiKey, blockB, bOnly)).toEqual(names('premium', 'wallet'));

      expect(await storedProfile(t, both, publisherA.accountId)).toEqual(
        expect.objectContaining({ isPremium: true, walletAddress: 'EQ-a', walletClassify: 'primary' }),
      );
      expect(await storedProfile(t, both, publisherB.accountId)).toEqual(expect.objectContaining({ isPremium: false, walletAddress: null }));
      expect(await storedProfile(t, bOnly, publisherA.accountId)).toBeNull();
    });

    it("should keep A's profiles through a rebuild of the serving store", async () => {
      const user = newUser('rebuilt');
      await uploadAndApply(t, publisherA.apiKey, [{ messengerUserId: user, isPremium: true }]);
      await uploadAndApply(t, publisherB.apiKey, [{ messengerUserId: user, isPremium: false }]);
      await t.http().post('/api/v2/admin/profiles/rebuild-store').set('x-api-key', ADMIN_KEY).expect(200);
      expect(await served(publisherA.apiKey, blockA, user)).toEqual(names('premium'));
      expect(await served(publisherB.apiKey, blockB, user)).toEqual([]);
    });

    it("should answer B asking for A's batch exactly like an unknown batch", async () => {
      const batchId = await uploadBatch(t, publisherA.apiKey, [{ messengerUserId: newUser('status'), isPremium: true }]);
      await waitForBatch(t, publisherA.apiKey, batchId);
      const foreign = await t.http().get(PROFILE_STATUS).query({ batchId }).set('x-api-key', publisherB.apiKey);
      const unknown = await t.http().get(PROFILE_STATUS).query({ batchId: UNKNOWN_ID }).set('x-api-key', publisherB.apiKey);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(unknown.body);
      expect(foreign.body).toEqual({ code: 404, message: 'batchId: batch not found', data: { errors: [{ field: 'batchId', message: 'batch not found' }] } });
    });

    it("should refuse B writing into A's profiles by naming A (403), storing nothing", async () => {
      const user = newUser('named');
      const before = { profiles: await countRows(t, 'profiles'), batches: await countRows(t, 'profile_batches') };
      const json = await t
        .http()
        .post('/api/v2/openapi/user/profile/batch')
        .query({ publisherId: publisherA.accountId })
        .set('x-api-key', publisherB.apiKey)
        .send({ list: [{ messengerUserId: user, isPremium: false }] });
      expect(json.status).toBe(403);
      expect(json.body).toEqual({
        code: 403,
        message: 'publisherId: only an admin may upload profiles for another account',
        data: { errors: [{ field: 'publisherId', message: 'only an admin may upload profiles for another account' }] },
      });
      const csv = await t
        .http()
        .post('/api/v2/openapi/user/profile/batch/csv')
        .query({ publisherId: publisherA.accountId })
        .set('x-api-key', publisherB.apiKey)
        .set('content-type', 'text/csv')
        .send(`messengerUserId,walletAddress,walletClassify\n${user},EQ,primary\n`);
      expect([csv.status, csv.body.code]).toEqual([403, 403]);
      expect({ profiles: await countRows(t, 'profiles'), batches: await countRows(t, 'profile_batches') }).toEqual(before);
    });

    it("should not let an admin's upload without publisherId touch a publisher's users", async () => {
      const user = newUser('admin');
      await uploadAndApply(t, publisherA.apiKey, [{ messengerUserId: user, isPremium: true }]);
      const admin = (await t.http().get(ME).set('x-api-key', ADMIN_KEY).expect(200)).body.data;
      await uploadAndApply(t, ADMIN_KEY, [{ messengerUserId: user, isPremium: false }]);
      expect(await served(publisherA.apiKey, blockA, user)).toEqual(names('premium'));
      expect(await storedProfile(t, user, publisherA.accountId)).toEqual(expect.objectContaining({ isPremium: true }));
      expect(await storedProfile(t, user, admin.accountId)).toEqual(expect.objectContaining({ isPremium: false }));
    });
  });

  describe('signed viewers', () => {
    let block: string;
    let first: string;
    let second: string;
    let secretA: string;
    let secretB: string;
    const ways: string[] = [];
    /** The edge resolves a key before the lanes run, so the Nest path is reached by switching the lane off. */
    let laneOffForNext = false;

    beforeAll(async () => {
      await endAllCampaigns(t);
      const created = await t
        .http()
        .post('/api/v2/openapi/ad/block/create')
        .set('x-api-key', publisherA.apiKey)
        .send({ name: 'Signed block', requireSignedViewer: true })
        .expect(200);
      block = created.body.data.adBlockId;
      first = await createServable(t, advertiser.apiKey, openCampaign({ name: 'first', bidding: { billingType: 'CPM', costPer: 3 } }, clock.now()));
      second = await createServable(t, advertiser.apiKey, openCampaign({ name: 'second', bidding: { billingType: 'CPM', costPer: 2 } }, clock.now()));
      secretA = (await t.http().get(ME).set('x-api-key', publisherA.apiKey).expect(200)).body.data.webhookSecret;
      secretB = (await t.http().get(ME).set('x-api-key', publisherB.apiKey).expect(200)).body.data.webhookSecret;
      expect(secretA).toMatch(/^[0-9a-f]{64}$/);
      expect(secretB).not.toBe(secretA);
      const lane = t.app.get(ServingFastLane);
      const tryHandle = lane.tryHandle.bind(lane);
      jest.spyOn(lane, 'tryHandle').mockImplementation((request, reply) => {
        const took = !laneOffForNext && tryHandle(request, reply);
        laneOffForNext = false;
        ways.push(took ? 'lane' : 'nest');
        return took;
      });
    });

    const token = (openId: string, expiresAtMs: number, secret = secretA) =>
      `${openId}.${expiresAtMs}.${createHmac('sha256', secret).update(`${openId}.${expiresAtMs}`).digest('hex')}`;
    const fetch = (key: string, openId: string, header?: string, extra: Record<string, string> = {}) => {
      const request = t
        .http()
        .get(FETCH)
        .query({ adBlockId: block, openId, type: 'messenger', limit: 9 })
        .set({ 'x-api-key': key, ...extra });
      return header === undefined ? request : request.set('x-adnet-viewer', header);
    };
    /** A key of publisher A never used before. */
    const freshKey = async () =>
      (await t.http().post(`/api/v2/admin/accounts/${publisherA.accountId}/keys`).set('x-api-key', ADMIN_KEY).send({ label: 'fresh' }).expect(200)).body.data
        .apiKey as string;
    const refusal = (problem: string) => ({
      code: 401,
      message: `x-adnet-viewer header ${problem}`,
      data: { errors: [{ field: 'x-adnet-viewer', message: `x-adnet-viewer header ${problem}` }] },
    });
    const impressionsOf = async (campaignId: string) => {
      const campaign = await flushedCampaign(t, campaignId);
      return { impressions: campaign.impressions, cost: campaign.cost };
    };

    it.each([
      ['no header', () => undefined, 'is required on this ad block (a viewer token made by your server)'],
      ['an expired header', (user: string) => token(user, clock.now() - 1), 'has expired'],
      ['a header expiring more than 24 h ahead', (user: string) => token(user, clock.now() + 24 * HOUR + 60_000), 'expires more than 24 hours ahead'],
      ['a forged signature', (user: string) => `${user}.${clock.now() + 60_000}.${randomBytes(32).toString('hex')}`, 'has a signature that does not match'],
      ['a header signed for another openId', () => token(newUser('other'), clock.now() + 60_000), 'was signed for another openId'],
      ["a header signed with another publisher's secret", (user: string) => token(user, clock.now() + 60_000, secretB), 'has a signature that does not match'],
      ['a malformed header', (user: string) => `${user}.soon.${'0'.repeat(64)}`, 'must be <openId>.<expiresAtMs>.<hex HMAC-SHA256 signature>'],
    ])('should refuse %s with 401, through Nest and through the fast lane, serving nothing', async (_case, header, problem) => {
      const key = await freshKey();
      for (const way of ['nest', 'lane']) {
        const user = newUser('refused');
        laneOffForNext = way === 'nest';
        const response = await fetch(key, user, header(user));
        expect({ way: ways[ways.length - 1], status: response.status, body: response.body }).toEqual({ way, status: 401, body: refusal(problem) });
        // nothing was served to that user: a click on it is not bound to any impression
        expect((await clickAd(t, key, { adBlockId: block, adId: `ad_${first}`, campaignId: first }, user)).status).toBe(400);
      }
      expect(await impressionsOf(first)).toEqual({ impressions: 0, cost: 0 });
      expect(await impressionsOf(second)).toEqual({ impressions: 0, cost: 0 });
      expect((await blockDetail(t, publisherA.apiKey, block)).impressions).toBe(0);
    });

    it('should refuse unsigned debug requests too, and answer test ads to signed ones', async () => {
      const user = newUser('debug');
      const refused = await fetch(publisherA.apiKey, user, undefined, { debug: 'true' });
      expect([refused.status, refused.body.message]).toEqual([401, refusal('is required on this ad block (a viewer token made by your server)').message]);
      const answered = await fetch(publisherA.apiKey, user, token(user, clock.now() + 60_000), { debug: 'true' }).expect(200);
      expect(answered.body.data.ads.length).toBeGreaterThan(0);
      expect(await impressionsOf(first)).toEqual({ impressions: 0, cost: 0 });
    });

    it('should serve a valid header and count exactly one impression per ad, through Nest and through the fast lane', async () => {
      const key = await freshKey();
      const users = [newUser('signed'), newUser('signed')];
      const answers: Body[][] = [];
      for (const [i, way] of ['nest', 'lane'].entries()) {
        laneOffForNext = way === 'nest';
        const response = await fetch(key, users[i], token(users[i], clock.now() + 10 * 60_000)).expect(200);
        expect(ways[ways.length - 1]).toBe(way);
        answers.push(response.body.data.ads);
      }
      for (const ads of answers) expect(ads.map((ad) => ad.campaignId)).toEqual([first, second]);
      // CPM 3 and 2 USDT: 0.003 and 0.002 per impression, two impressions each
      expect(await impressionsOf(first)).toEqual({ impressions: 2, cost: 0.006 });
      expect(await impressionsOf(second)).toEqual({ impressions: 2, cost: 0.004 });
      expect((await blockDetail(t, publisherA.apiKey, block)).impressions).toBe(4);

      // the click needs no header: it is bound to the impression served under the valid one, once
      const clicked = await clickAd(t, key, answers[0][0], users[0]).expect(200);
      expect(clicked.body.code).toBe(0);
      expect((await flushedCampaign(t, first)).clicks).toBe(1);
    });

    it('should refuse a token once its time has passed on the service clock', async () => {
      const user = newUser('late');
      const header = token(user, clock.now() + 5_000);
      await fetch(publisherA.apiKey, user, header).expect(200);
      clock.advance(5_000);
      const late = await fetch(publisherA.apiKey, user, header);
      expect([late.status, late.body]).toEqual([401, refusal('has expired')]);
    });

    it('should refuse tokens signed with the old secret once the publisher rotates it', async () => {
      const user = newUser('rotated');
      const old = token(user, clock.now() + 60_000);
      await fetch(publisherA.apiKey, user, old).expect(200);
      const rotated = await t.http().post('/api/v2/openapi/account/webhook-secret/rotate').set('x-api-key', publisherA.apiKey).expect(200);
      secretA = rotated.body.data.webhookSecret;
      const refused = await fetch(publisherA.apiKey, user, old);
      expect([refused.status, refused.body]).toEqual([401, refusal('has a signature that does not match')]);
      await fetch(publisherA.apiKey, user, token(user, clock.now() + 60_000)).expect(200);
    });

    it('should accept an openId holding dots', async () => {
      const user = `${newUser('dotted')}.with.dots`;
      await fetch(publisherA.apiKey, user, token(user, clock.now() + 60_000)).expect(200);
    });
  });
});
