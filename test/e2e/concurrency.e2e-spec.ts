import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Click } from '../../src/clicks/entities/click.entity';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { TEST_PROFILE } from '../support/profile';
import { getRepositoryToken } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Campaign } from '../../src/campaigns/entities/campaign.entity';
import { flushStats, refreshIndex } from '../support/serving-helpers';
import { Body, clickAd, createServable, endAllCampaigns, fetchRaw, flushedCampaign, HOUR, newUser, setStatus } from '../support/serving-fixtures';
import { createAccount, createAdBlock, createCampaign, openCampaign } from '../support/factories';

/**
 * Budgets and click dedup under concurrent load. On the MySQL + Redis profile two application instances share
 * one database and one Redis (as two server processes would) and the requests alternate between them; on the
 * embedded profile, whose state lives in one process, one instance takes all of them concurrently.
 */
describe(`Concurrent serving and clicks (${TEST_PROFILE === 'mysql' ? 'two instances on MySQL + Redis' : 'one embedded instance'})`, () => {
  let instances: TestApp[];
  let publisher: { apiKey: string };
  let advertiser: { apiKey: string };
  let block: string;

  beforeAll(async () => {
    const shared = { REDIS_PREFIX: `adnet-e2e:conc-${randomBytes(4).toString('hex')}:`, INDEX_REFRESH_MS: '600000' };
    const first = await startTestApp(shared);
    instances = TEST_PROFILE === 'mysql' ? [first, await startTestApp(shared, { dropSchema: false })] : [first];
    publisher = await createAccount(first, ['publisher'], 'Concurrent publisher');
    advertiser = await createAccount(first, ['advertiser'], 'Concurrent advertiser');
    block = await createAdBlock(first, publisher.apiKey, 'Busy block');
  });
  afterAll(async () => {
    for (const instance of instances ?? []) await instance.close();
  });

  const instance = (i: number) => instances[i % instances.length];
  const refreshAll = async () => {
    for (const app of instances) await refreshIndex(app);
  };

  beforeEach(async () => {
    await endAllCampaigns(instances[0]);
    await refreshAll();
  });

  it('serves a small CPM budget exactly: spend never passes the total by more than one impression price', async () => {
    // 2.5 USDT CPM = 2500 micro-USDT per impression; 0.1 USDT total buys exactly 40 impressions.
    const campaignId = await createServable(
      instances[0],
      advertiser.apiKey,
      openCampaign({ budget: { amount: 0.1, total: 0.1 }, bidding: { billingType: 'CPM', costPer: 2.5 } }),
    );
    await refreshAll();

    const responses = await Promise.all(Array.from({ length: 240 }, (_, i) => fetchRaw(instance(i), publisher.apiKey, block, newUser('cpm'), { limit: 1 })));
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    const served = responses.flatMap((response) => response.body.data.ads as Body[]);
    expect(served.every((ad) => ad.campaignId === campaignId)).toBe(true);
    expect(served.length).toBe(40);

    for (const app of instances) await flushedCampaign(app, campaignId);
    const detail = await flushedCampaign(instances[0], campaignId);
    expect(detail.impressions).toBe(40);
    expect(detail.cost).toBe(0.1);
    expect(detail.cost).toBeLessThanOrEqual(0.1 + 0.0025);
    expect(detail.deliveryStatus).not.toBe('delivering');
  });

  it('counts each user click once across instances and bills CPC within budget plus one click', async () => {
    // 0.5 USDT per click, 2 USDT total: 4 paid clicks; later clicks are recorded unbilled (the budget is spent).
    const campaignId = await createServable(
      instances[0],
      advertiser.apiKey,
      openCampaign({ budget: { amount: 2, total: 2 }, bidding: { billingType: 'CPC', costPer: 0.5 } }),
    );
    await refreshAll();

    const users = Array.from({ length: 12 }, () => newUser('cpc'));
    const ads: Body[] = [];
    for (const [i, user] of users.entries()) {
      const response = await fetchRaw(instance(i), publisher.apiKey, block, user, { limit: 1 }).expect(200);
      expect(response.body.data.ads).toHaveLength(1);
      ads.push(response.body.data.ads[0]);
    }

    // Every user's click arrives four times at once, spread over the instances (retries, double taps).
    const attempts = users.flatMap((user, i) => [0, 1, 2, 3].map((k) => clickAd(instance(i + k), publisher.apiKey, ads[i], user)));
    const responses = await Promise.all(attempts);
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    const messages = responses.map((response) => response.body.data.msg as string);
    expect(messages.filter((msg) => msg === 'click counted')).toHaveLength(4);
    expect(messages.filter((msg) => msg.startsWith('click recorded, not billed'))).toHaveLength(users.length - 4);
    expect(messages.filter((msg) => msg === 'duplicate click: not counted again')).toHaveLength(3 * users.length);

    const stored = await instances[0].app.get(DataSource).getRepository(Click).findBy({ campaignId });
    expect(stored).toHaveLength(users.length);
    expect(new Set(stored.map((click) => click.messengerUserId)).size).toBe(users.length);
    const paid = stored.filter((click) => click.costMicros > 0);
    expect(paid).toHaveLength(4);
    expect(paid.every((click) => click.costMicros === 500_000 && click.status === 'counted')).toBe(true);
    expect(stored.filter((click) => click.status === 'unbilled' && click.costMicros === 0)).toHaveLength(users.length - 4);

    for (const app of instances) await flushedCampaign(app, campaignId);
    const detail = await flushedCampaign(instances[0], campaignId);
    expect(detail.clicks).toBe(4);
    expect(detail.unbilledClicks).toBe(users.length - 4);
    expect(detail.impressions).toBe(users.length);
    expect(detail.cost).toBe(2);
    const adminView = await instances[instances.length - 1]
      .http()
      .get('/api/v2/openapi/ad/campaign/detail')
      .query({ campaignId })
      .set('x-api-key', ADMIN_KEY)
      .expect(200);
    expect(adminView.body.data.clicks).toBe(4);
  });

  it.each(['paused', 'end'])(
    'keeps every counter and the spend committed by any instance while a "%s" status change is decided (it writes the status only)',
    async (status) => {
      // 2 USDT CPM: 2000 micro-USDT an impression
      const campaignId = await createServable(
        instances[0],
        advertiser.apiKey,
        openCampaign({ budget: { amount: 10, total: 10 }, bidding: { billingType: 'CPM', costPer: 2 } }),
      );
      await refreshAll();
      const serveAndCommit = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const ads = (await fetchRaw(instance(i), publisher.apiKey, block, newUser('status-race'), { limit: 1 }).expect(200)).body.data.ads as Body[];
          expect(ads.map((ad) => ad.campaignId)).toEqual([campaignId]);
        }
        for (const app of instances) await flushStats(app);
      };
      await serveAndCommit(3);

      // The status change reads the campaign; before it writes, the instances serve and commit more impressions.
      const campaigns = instances[0].app.get<Repository<Campaign>>(getRepositoryToken(Campaign));
      const read = campaigns.findOneBy.bind(campaigns);
      const interleaved = jest.spyOn(campaigns, 'findOneBy').mockImplementationOnce(async (where) => {
        const loaded = await read(where);
        await serveAndCommit(4);
        return loaded;
      });
      try {
        await setStatus(instances[0], advertiser.apiKey, campaignId, status);
        expect(interleaved).toHaveBeenCalled();
      } finally {
        interleaved.mockRestore();
      }

      const detail = await flushedCampaign(instances[0], campaignId);
      expect({ status: detail.campaignStatus, impressions: detail.impressions, cost: detail.cost }).toEqual({
        status: status === 'end' ? 'ended' : 'paused',
        impressions: 7,
        cost: 0.014,
      });
      const series = await instances[0]
        .http()
        .get('/api/v2/openapi/ad/campaign/stats')
        .query({ campaignId, from: Date.now() - 2 * HOUR, to: Date.now() + HOUR, granularity: 'day' })
        .set('x-api-key', advertiser.apiKey)
        .expect(200);
      const points = series.body.data.series as Body[];
      expect([points.reduce((sum, point) => sum + point.impressions, 0), points.reduce((sum, point) => sum + point.cost, 0)]).toEqual([7, 0.014]);
    },
  );

  it('another instance serves a new campaign and stops a paused one through change notices, without a refresh', async () => {
    const last = instances[instances.length - 1];
    const campaignId = await createCampaign(instances[0], advertiser.apiKey, openCampaign());
    const user = newUser('notice');
    const servedOnLast = async () =>
      ((await fetchRaw(last, publisher.apiKey, block, user, { limit: 9 }).expect(200)).body.data.ads as Body[]).some((ad) => ad.campaignId === campaignId);
    expect(await eventually(servedOnLast, true)).toBe(true);

    await instances[0].http().post('/api/v2/openapi/ad/campaign/status').set('x-api-key', advertiser.apiKey).send({ campaignId, status: 'paused' }).expect(200);
    expect(await eventually(servedOnLast, false)).toBe(false);
  });
});

/** Polls `probe` until it answers `wanted` or two seconds pass; answers the last value. */
async function eventually<T>(probe: () => Promise<T>, wanted: T): Promise<T> {
  const deadline = Date.now() + 2000;
  let value = await probe();
  while (value !== wanted && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await probe();
  }
  return value;
}
