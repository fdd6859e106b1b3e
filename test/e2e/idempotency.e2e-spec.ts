import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';
import { Body } from '../support/serving-fixtures';
import { PROFILE_BATCH, waitForBatch } from '../support/profile-helpers';
import { openCampaign, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const CREATE = '/api/v2/openapi/ad/campaign/create';

describe('Idempotency-Key on POST (§20)', () => {
  let t: TestApp;
  let advertiser: Account;
  let otherAdvertiser: Account;
  let publisher: Account;

  const http = () => t.http();
  const db = () => t.app.get(DataSource);
  const count = async (table: string, where = '1 = 1', params: unknown[] = []) =>
    Number((await db().query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params))[0].n);
  const campaignsOf = (account: Account) => count('campaigns', 'accountId = ?', [account.accountId]);
  const create = (key: string | null, body: object, account = advertiser) => {
    const request = http().post(CREATE).set('x-api-key', account.apiKey);
    return key === null ? request.send(body) : request.set('Idempotency-Key', key).send(body);
  };

  beforeAll(async () => {
    t = await startTestApp();
    ({ advertiser, otherAdvertiser, publisher } = await createAccounts(t, {
      advertiser: ['advertiser', 'Advertiser A'],
      otherAdvertiser: ['advertiser', 'Advertiser B'],
      publisher: ['publisher', 'Publisher P'],
    }));
  });
  afterAll(() => t.close());

  it('should make one campaign of a retried create, answering the retry the first answer with Idempotent-Replayed', async () => {
    const before = await campaignsOf(advertiser);
    const body = openCampaign({ name: 'Retried launch' });
    const first = await create('create-1', body);
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await create('create-1', body);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await campaignsOf(advertiser)).toBe(before + 1);
  });

  it('should answer the same key with another body 422 naming Idempotency-Key, creating nothing', async () => {
    await create('create-2', openCampaign({ name: 'First' })).expect(200);
    const before = await campaignsOf(advertiser);
    const other = await create('create-2', openCampaign({ name: 'Second' }));
    expect([other.status, other.body.code, other.body.data.errors[0].field]).toEqual([422, 422, 'Idempotency-Key']);
    // the same key on another path is another request too
    const elsewhere = await http().post('/api/v2/openapi/ad/campaign/status').set('x-api-key', advertiser.apiKey).set('Idempotency-Key', 'create-2').send({});
    expect(elsewhere.status).toBe(422);
    expect(await campaignsOf(advertiser)).toBe(before);
  });

  it('should create one campaign for concurrent duplicates: the others replay or answer 409', async () => {
    const before = await campaignsOf(advertiser);
    const body = openCampaign({ name: 'Concurrent' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => create('create-3', body)));
    expect(await campaignsOf(advertiser)).toBe(before + 1);
    const ok = answers.filter((answer) => answer.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((answer) => answer.body.data.campaignId)).size).toBe(1);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect([answer.status, answer.body.data.errors[0].field]).toEqual([409, 'Idempotency-Key']);
    }
    // once the first has answered, every repeat replays it
    const later = await create('create-3', body);
    expect([later.status, later.headers['idempotent-replayed'], later.body.data.campaignId]).toEqual([200, 'true', ok[0].body.data.campaignId]);
  });

  it('should keep keys per account: another account with the same key makes its own campaign', async () => {
    const body = openCampaign({ name: 'Shared key' });
    const mine = await create('shared-key', body).expect(200);
    const theirs = await create('shared-key', body, otherAdvertiser).expect(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.campaignId).not.toBe(mine.body.data.campaignId);
  });

  it('should replay a refused first request (4xx) and cost nothing without the header', async () => {
    const bad = { ...openCampaign(), bidding: { billingType: 'CPM', costPer: -1 } };
    const first = await create('bad-1', bad);
    expect(first.status).toBe(400);
    const again = await create('bad-1', bad);
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([400, 'true']);
    expect(again.body).toEqual(first.body);

    const records = await count('idempotency_keys');
    const before = await campaignsOf(advertiser);
    const body = openCampaign({ name: 'No key' });
    await create(null, body).expect(200);
    await create(null, body).expect(200);
    expect(await campaignsOf(advertiser)).toBe(before + 2);
    expect(await count('idempotency_keys')).toBe(records);
  });

  it('should apply a retried profile batch once: one batch, one job', async () => {
    const list = [
      { messengerUserId: 'idem-user-1', language: 'en' },
      { messengerUserId: 'idem-user-2', isPremium: true },
    ];
    const batches = await count('profile_batches');
    const first = await http().post(PROFILE_BATCH).set('x-api-key', publisher.apiKey).set('Idempotency-Key', 'batch-1').send({ list }).expect(200);
    const retry = await http().post(PROFILE_BATCH).set('x-api-key', publisher.apiKey).set('Idempotency-Key', 'batch-1').send({ list }).expect(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.data.batchId).toBe(first.body.data.batchId);
    expect(await count('profile_batches')).toBe(batches + 1);
    const status: Body = await waitForBatch(t, publisher.apiKey, first.body.data.batchId);
    expect([status.status, status.total, status.processed]).toEqual(['done', 2, 2]);
  });

  it.each([
    ['over 255 characters', 'k'.repeat(256)],
    ['not printable ASCII', 'clé-1'],
  ])('should answer a key %s 400 naming Idempotency-Key, creating nothing', async (_case, key) => {
    const before = await campaignsOf(advertiser);
    const response = await http().post(CREATE).set('x-api-key', advertiser.apiKey).set('Idempotency-Key', encodeURIComponentIfNeeded(key)).send(openCampaign());
    expect([response.status, response.body.data.errors[0].field]).toEqual([400, 'Idempotency-Key']);
    expect(await campaignsOf(advertiser)).toBe(before);
  });
});

/** Node refuses non-Latin-1 header values: send the raw UTF-8 bytes as Latin-1 text, as a client would. */
function encodeURIComponentIfNeeded(key: string): string {
  return Buffer.from(key, 'utf8').toString('latin1');
}
