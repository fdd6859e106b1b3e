import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TEST_PROFILE } from '../support/profile';
import { refreshIndex } from '../support/serving-helpers';
import { BLOCK_BASE, Body, CAMPAIGN_BASE, expectValidationError, fetchAds, newUser, UNKNOWN_ID } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAdBlock, openCampaign, createAccount } from '../support/factories';

const REVIEWS = '/api/v2/admin/reviews';
const OLD_URL = 'https://landing.example/offer';
const NEW_URL = 'https://elsewhere.example/swap';

/** Creative review with revisions (docs/CONTRACT.md §18), CAMPAIGN_REVIEW=true. */
describe(`Creative review [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let advertiser: { accountId: string; apiKey: string };
  let publisher: { accountId: string; apiKey: string };
  let block: string;

  beforeAll(async () => {
    t = await startTestApp({ CAMPAIGN_REVIEW: 'true' });
    advertiser = await createAccount(t, ['advertiser'], 'Reviewed advertiser');
    publisher = await createAccount(t, ['publisher'], 'Review publisher');
    block = await createAdBlock(t, publisher.apiKey, 'Review block');
  });
  afterAll(() => t.close());

  const detail = async (campaignId: string, apiKey = advertiser.apiKey): Promise<Body> =>
    (await t.http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId }).set('x-api-key', apiKey).expect(200)).body.data;
  const update = (body: Body, apiKey = advertiser.apiKey) => t.http().post(`${CAMPAIGN_BASE}/update`).set('x-api-key', apiKey).send(body);
  const approve = (body: Body, apiKey = ADMIN_KEY) => t.http().post(`${REVIEWS}/approve`).set('x-api-key', apiKey).send(body);
  const reject = (body: Body, apiKey = ADMIN_KEY) => t.http().post(`${REVIEWS}/reject`).set('x-api-key', apiKey).send(body);
  const queue = async (): Promise<Body[]> => (await t.http().get(REVIEWS).query({ pageSize: 100 }).set('x-api-key', ADMIN_KEY).expect(200)).body.data.reviews;
  const create = async (name: string) => {
    const body = openCampaign({ name, bidding: { costPer: 5 }, ad: { text: `${name} text`, destination: { actionType: 'visit.website', url: OLD_URL } } });
    const response = await t.http().post(`${CAMPAIGN_BASE}/create`).set('x-api-key', advertiser.apiKey).send(body).expect(200);
    return response.body.data.campaignId as string;
  };
  /** A campaign approved by an admin and in this process's serving index. */
  const approved = async (name: string) => {
    const campaignId = await create(name);
    await approve({ campaignId }).expect(200);
    await refreshIndex(t);
    return campaignId;
  };
  /** The ads of this campaign in `times` answers of endpoint 5, each to a new user. */
  const servedCreatives = async (campaignId: string, times = 3, app = t) => {
    const creatives: Body[] = [];
    for (let i = 0; i < times; i++) {
      const ads = await fetchAds(app, publisher.apiKey, block, newUser());
      creatives.push(...ads.filter((ad) => ad.campaignId === campaignId).map((ad) => ({ text: ad.text, url: ad.destination.url })));
    }
    return creatives;
  };
  const end = (campaignId: string) => t.http().post(`${CAMPAIGN_BASE}/status`).set('x-api-key', ADMIN_KEY).send({ campaignId, status: 'end' }).expect(200);

  it('should hold a new campaign out of serving until an admin approves it from the queue', async () => {
    const campaignId = await create('Fresh');
    await refreshIndex(t);
    expect(await detail(campaignId)).toEqual(
      expect.objectContaining({ campaignStatus: 'inReview', reviewStatus: 'pending', reviewNote: null, pendingAd: null }),
    );
    expect(await servedCreatives(campaignId)).toEqual([]);
    const waiting = (await queue()).find((item) => item.campaignId === campaignId);
    expect(waiting).toEqual({
      campaignId,
      userId: advertiser.accountId,
      name: 'Fresh',
      kind: 'new',
      waitingSince: expect.any(Number),
      campaignStatus: 'inReview',
      category: 'other',
      pendingCategory: null,
      approvedAd: null,
      pendingAd: expect.objectContaining({ text: 'Fresh text', destination: { actionType: 'visit.website', url: OLD_URL } }),
    });
    const answer = await approve({ campaignId }).expect(200);
    expect(answer.body.data).toEqual(expect.objectContaining({ campaignId, campaignStatus: 'onGoing', reviewStatus: 'approved', pendingAd: null }));
    expect((await queue()).map((item) => item.campaignId)).not.toContain(campaignId);
    await refreshIndex(t);
    expect(await servedCreatives(campaignId, 2)).toEqual([
      { text: 'Fresh text', url: OLD_URL },
      { text: 'Fresh text', url: OLD_URL },
    ]);
    await end(campaignId);
  });

  it('should keep serving the approved creative after an edit of `ad` until the revision is approved, then serve the new one', async () => {
    const campaignId = await approved('Swap');
    const edited = await update({ campaignId, ad: { text: 'Swapped text', destination: { url: NEW_URL } } }).expect(200);
    expect(edited.body.data).toEqual(
      expect.objectContaining({
        campaignStatus: 'onGoing',
        reviewStatus: 'pending',
        reviewNote: null,
        ad: expect.objectContaining({ text: 'Swap text', destination: { actionType: 'visit.website', url: OLD_URL } }),
        pendingAd: expect.objectContaining({ text: 'Swapped text', destination: { actionType: 'visit.website', url: NEW_URL } }),
      }),
    );
    expect(await detail(campaignId)).toEqual(edited.body.data);
    await refreshIndex(t);
    expect(await servedCreatives(campaignId)).toEqual(Array(3).fill({ text: 'Swap text', url: OLD_URL }));

    // a second edit merges into the revision waiting, which keeps its place in the queue
    const before = (await queue()).find((item) => item.campaignId === campaignId)!;
    expect(before).toEqual(
      expect.objectContaining({
        kind: 'revision',
        approvedAd: expect.objectContaining({ text: 'Swap text' }),
        pendingAd: expect.objectContaining({ text: 'Swapped text' }),
      }),
    );
    await update({ campaignId, ad: { buttonText: 'Go now' } }).expect(200);
    const after = (await queue()).find((item) => item.campaignId === campaignId)!;
    expect(after.waitingSince).toBe(before.waitingSince);
    expect(after.pendingAd).toEqual(
      expect.objectContaining({ text: 'Swapped text', buttonText: 'Go now', destination: { actionType: 'visit.website', url: NEW_URL } }),
    );

    const answer = await approve({ campaignId }).expect(200);
    expect(answer.body.data).toEqual(
      expect.objectContaining({
        reviewStatus: 'approved',
        pendingAd: null,
        ad: expect.objectContaining({ text: 'Swapped text', buttonText: 'Go now', destination: { actionType: 'visit.website', url: NEW_URL } }),
      }),
    );
    await refreshIndex(t);
    expect(await servedCreatives(campaignId, 2)).toEqual(Array(2).fill({ text: 'Swapped text', url: NEW_URL }));
    await end(campaignId);
  });

  it('should discard a rejected revision, keep the approved creative serving and show the note', async () => {
    const campaignId = await approved('Rejected swap');
    await update({ campaignId, ad: { destination: { url: NEW_URL } } }).expect(200);
    const answer = await reject({ campaignId, note: 'The landing page is not the advertised game' }).expect(200);
    expect(answer.body.data).toEqual(
      expect.objectContaining({
        reviewStatus: 'rejected',
        reviewNote: 'The landing page is not the advertised game',
        pendingAd: null,
        campaignStatus: 'onGoing',
        ad: expect.objectContaining({ destination: { actionType: 'visit.website', url: OLD_URL } }),
      }),
    );
    expect(await detail(campaignId)).toEqual(answer.body.data);
    await refreshIndex(t);
    expect(await servedCreatives(campaignId, 2)).toEqual(Array(2).fill({ text: 'Rejected swap text', url: OLD_URL }));
    // a new edit waits again, without the old note
    expect((await update({ campaignId, ad: { text: 'Second try' } }).expect(200)).body.data).toEqual(
      expect.objectContaining({ reviewStatus: 'pending', reviewNote: null, pendingAd: expect.objectContaining({ text: 'Second try' }) }),
    );
    await end(campaignId);
  });

  it('should keep a rejected new campaign inReview until its advertiser edits it, then queue it again', async () => {
    const campaignId = await create('Rejected new');
    await reject({ campaignId, note: 'Image is unreadable' }).expect(200);
    expect(await detail(campaignId)).toEqual(
      expect.objectContaining({ campaignStatus: 'inReview', reviewStatus: 'rejected', reviewNote: 'Image is unreadable' }),
    );
    expect((await queue()).map((item) => item.campaignId)).not.toContain(campaignId);
    await refreshIndex(t);
    expect(await servedCreatives(campaignId)).toEqual([]);
    expect((await update({ campaignId, ad: { popupImage: 'https://cdn.example.com/better.png' } }).expect(200)).body.data).toEqual(
      expect.objectContaining({ campaignStatus: 'inReview', reviewStatus: 'pending', reviewNote: null, pendingAd: null }),
    );
    expect((await queue()).find((item) => item.campaignId === campaignId)?.pendingAd.popupImage).toBe('https://cdn.example.com/better.png');
    await end(campaignId);
  });

  it('should apply an edit that does not touch `ad` at once, and setting `ad` back withdraws the revision', async () => {
    const campaignId = await approved('Budget only');
    const edited = await update({ campaignId, name: 'Renamed', budget: { amount: 20 }, targeting: { platform: 'Android' } }).expect(200);
    expect(edited.body.data).toEqual(
      expect.objectContaining({ name: 'Renamed', reviewStatus: 'approved', pendingAd: null, budget: expect.objectContaining({ amount: 20 }) }),
    );
    expect(edited.body.data.targeting.platform).toBe('Android');
    await t.http().post(`${CAMPAIGN_BASE}/status`).set('x-api-key', advertiser.apiKey).send({ campaignId, status: 'paused' }).expect(200);
    expect((await detail(campaignId)).campaignStatus).toBe('paused');
    // an unchanged `ad` is no revision
    expect((await update({ campaignId, ad: { text: 'Budget only text' } }).expect(200)).body.data.reviewStatus).toBe('approved');
    await update({ campaignId, ad: { text: 'Changed' } }).expect(200);
    const withdrawn = await update({ campaignId, ad: { text: 'Budget only text' } }).expect(200);
    expect(withdrawn.body.data).toEqual(expect.objectContaining({ reviewStatus: 'approved', pendingAd: null }));
    expect((await queue()).map((item) => item.campaignId)).not.toContain(campaignId);
    await end(campaignId);
  });

  it('should review a category change with the creative: a block that refuses the category keeps refusing it until approval', async () => {
    const campaignId = await create('Casino');
    await update({ campaignId, category: 'gambling' }).expect(200);
    await approve({ campaignId }).expect(200);
    const strict = await createAdBlock(t, publisher.apiKey, 'No gambling');
    await t
      .http()
      .post(`${BLOCK_BASE}/update`)
      .set('x-api-key', publisher.apiKey)
      .send({ adBlockId: strict, blockedCategories: ['gambling'] })
      .expect(200);
    await refreshIndex(t);
    const servedOnStrict = async () => (await fetchAds(t, publisher.apiKey, strict, newUser())).some((ad) => ad.campaignId === campaignId);
    expect(await servedOnStrict()).toBe(false);

    // leaving the category is an edit nobody saw: it waits, and the approved category keeps applying
    const edited = (await update({ campaignId, category: 'games' }).expect(200)).body.data;
    expect(edited).toEqual(expect.objectContaining({ category: 'gambling', pendingCategory: 'games', reviewStatus: 'pending' }));
    expect((await queue()).find((item) => item.campaignId === campaignId)).toEqual(expect.objectContaining({ category: 'gambling', pendingCategory: 'games' }));
    await refreshIndex(t);
    expect(await servedOnStrict()).toBe(false);

    await approve({ campaignId }).expect(200);
    expect(await detail(campaignId)).toEqual(expect.objectContaining({ category: 'games', pendingCategory: null, reviewStatus: 'approved' }));
    await refreshIndex(t);
    expect(await servedOnStrict()).toBe(true);
    await end(campaignId);
  });

  it('should list what waits oldest first', async () => {
    const first = await create('Queue one');
    const second = await approved('Queue two');
    await update({ campaignId: second, ad: { text: 'Queue two edited' } }).expect(200);
    const third = await create('Queue three');
    const order = (await queue()).map((item) => item.campaignId).filter((id) => [first, second, third].includes(id));
    expect(order).toEqual([first, second, third]);
    const waiting = await queue();
    const since = waiting.map((item) => item.waitingSince);
    expect(since).toEqual([...since].sort((a, b) => a - b));
    for (const id of [first, second, third]) await end(id);
    // an ended campaign no longer waits
    expect((await queue()).map((item) => item.campaignId).filter((id) => [first, second, third].includes(id))).toEqual([]);
  });

  it('should refuse the admin routes to advertiser and publisher keys (403) and without a key (401)', async () => {
    const campaignId = await create('Self approval');
    for (const key of [advertiser.apiKey, publisher.apiKey]) {
      expect((await t.http().get(REVIEWS).set('x-api-key', key)).status).toBe(403);
      expect((await approve({ campaignId }, key)).status).toBe(403);
      expect((await reject({ campaignId, note: 'x' }, key)).status).toBe(403);
    }
    expect((await t.http().post(`${REVIEWS}/approve`).send({ campaignId })).status).toBe(401);
    expect(await detail(campaignId)).toEqual(expect.objectContaining({ campaignStatus: 'inReview', reviewStatus: 'pending' }));
    await end(campaignId);
  });

  it.each([
    ['approve', {}, 'campaignId'],
    ['approve', { campaignId: '' }, 'campaignId'],
    ['approve', { campaignId: 5 }, 'campaignId'],
    ['reject', { note: 'no id' }, 'campaignId'],
    ['reject', {}, 'note'],
    ['reject', { note: '' }, 'note'],
    ['reject', { note: '   ' }, 'note'],
    ['reject', { note: 5 }, 'note'],
    ['reject', { note: 'n'.repeat(1001) }, 'note'],
  ])('should refuse %s (case %#) as a 400 naming its field, changing nothing', async (route, fields: Body, field) => {
    const campaignId = await create('Bad input');
    const before = await detail(campaignId);
    const body = field === 'campaignId' ? fields : { campaignId, ...fields };
    expectValidationError(await (route === 'approve' ? approve(body) : reject(body)), field);
    expect(await detail(campaignId)).toEqual(before);
    await end(campaignId);
  });

  it('should answer 404 for an unknown campaign and 409 when nothing waits', async () => {
    const unknown = await approve({ campaignId: UNKNOWN_ID });
    expect([unknown.status, unknown.body.message]).toEqual([404, 'campaignId: campaign not found']);
    const campaignId = await approved('Nothing waits');
    const before = await detail(campaignId);
    const again = await approve({ campaignId });
    expect([again.status, again.body.message]).toEqual([409, 'campaignId: nothing of this campaign waits for review']);
    expect((await reject({ campaignId, note: 'late' })).status).toBe(409);
    expect(await detail(campaignId)).toEqual(before);
    await end(campaignId);
  });

  it('should count what waits and the age of the oldest in /metrics', async () => {
    const campaignId = await create('Metered');
    const metrics = (await t.http().get('/metrics').set('x-api-key', ADMIN_KEY).expect(200)).text;
    const rows = (
      await t.app
        .get(DataSource)
        .query(
          `SELECT COUNT(*) AS n FROM campaigns WHERE approved = 0 AND status <> 'ended' AND ${TEST_PROFILE === 'mysql' ? '`reviewStatus`' : '"reviewStatus"'} = 'pending'`,
        )
    )[0];
    expect(metrics).toContain(`adnet_campaign_reviews_waiting{kind="new"} ${Number(rows.n)}`);
    expect(metrics).toMatch(/adnet_campaign_review_oldest_age_seconds\{kind="new"\} \d/);
    await end(campaignId);
  });

  (TEST_PROFILE === 'mysql' ? it : it.skip)('should keep the approved creative in another process until the revision is approved', async () => {
    const shared = { REDIS_PREFIX: `adnet-e2e:review-${randomBytes(4).toString('hex')}:`, CAMPAIGN_REVIEW: 'true' };
    const writer = await startTestApp(shared, { dropSchema: false });
    const reader = await startTestApp(shared, { dropSchema: false });
    try {
      const campaignId = await create('Two processes');
      await writer.http().post(`${REVIEWS}/approve`).set('x-api-key', ADMIN_KEY).send({ campaignId }).expect(200);
      await refreshIndex(reader);
      expect(await servedCreatives(campaignId, 1, reader)).toEqual([{ text: 'Two processes text', url: OLD_URL }]);
      await writer
        .http()
        .post(`${CAMPAIGN_BASE}/update`)
        .set('x-api-key', advertiser.apiKey)
        .send({ campaignId, ad: { destination: { url: NEW_URL } } })
        .expect(200);
      await refreshIndex(reader);
      expect(await servedCreatives(campaignId, 3, reader)).toEqual(Array(3).fill({ text: 'Two processes text', url: OLD_URL }));
      await writer.http().post(`${REVIEWS}/approve`).set('x-api-key', ADMIN_KEY).send({ campaignId }).expect(200);
      await refreshIndex(reader);
      expect(await servedCreatives(campaignId, 1, reader)).toEqual([{ text: 'Two processes text', url: NEW_URL }]);
      await end(campaignId);
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
