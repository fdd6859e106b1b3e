import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS_DEADLINE, RedisDeadline } from '../../src/redis/redis-deadline';
import { TEST_PROFILE } from '../support/profile';
import { startTestApp, TestApp } from '../support/test-app';
import { flushStats } from '../support/serving-helpers';
import { Body, clickAd, createServable, fetchAds, fetchRaw, flushedCampaign, newUser } from '../support/serving-fixtures';
import { createAccount, createAdBlock, openCampaign } from '../support/factories';
import { countRows, postBatch, storedProfile, uploadAndApply } from '../support/profile-helpers';

/**
 * A Redis that stops answering (SIGSTOP: its connections stay open, its replies never come) and then answers again:
 * requests are answered without it at once (docs/OPERATIONS.md, "Faults"), and what a refused click did in Redis
 * once it resumed is taken back, so the same click sent again is counted once. Its own redis-server on a free port:
 * the shared one is never frozen.
 */
(TEST_PROFILE === 'mysql' ? describe : describe.skip)('Redis frozen: answers without it, nothing kept of refused requests', () => {
  let redisServer: ChildProcess;
  let redis: Redis;
  let t: TestApp;
  let publisher: { apiKey: string };
  let advertiser: { apiKey: string };
  let block: string;
  let campaignId: string;
  const PRICE = 0.05;
  const STATS_FLUSH_MS = 3000;
  // how long after a loss a click without its mark is asked to come back (EPOCH_CHECK_EVERY_MS + STATS_FLUSH_MS + 1 s)
  const SETTLE_SECONDS = (1000 + STATS_FLUSH_MS + 1000) / 1000;

  beforeAll(async () => {
    const port = await freePort();
    redisServer = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    redis = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: null });
    await redis.ping();
    t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_DEADLINE_MS: '200', STATS_FLUSH_MS: String(STATS_FLUSH_MS) });
    publisher = await createAccount(t, ['publisher']);
    advertiser = await createAccount(t, ['advertiser']);
    block = await createAdBlock(t, publisher.apiKey);
    campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPC', costPer: PRICE } }));
  });

  afterAll(async () => {
    if (redisServer.exitCode === null) redisServer.kill('SIGCONT');
    await t?.close();
    redis.disconnect();
    redisServer.kill('SIGKILL');
  });

  const deadline = () => t.app.get<RedisDeadline>(REDIS_DEADLINE);
  const clickKeys = () => redis.keys('*clk:*');

  it('should answer a click 503 with Retry-After while Redis is frozen, and count it once when sent again after', async () => {
    const user = newUser();
    const [ad] = await fetchAds(t, publisher.apiKey, block, user);
    expect(ad.campaignId).toBe(campaignId);

    redisServer.kill('SIGSTOP');
    const refused = await clickAd(t, publisher.apiKey, ad, user);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toEqual({ code: 503, message: 'redis unavailable: nothing was stored; retry after 1 s', data: { retryAfter: 1 } });
    // the breaker is open: refused without a command
    const again = await clickAd(t, publisher.apiKey, ad, user);
    expect(again.status).toBe(503);
    // ads are answered, none (an ad served without its served mark could not take its click)
    const fetched = await fetchRaw(t, publisher.apiKey, block, newUser());
    expect(fetched.status).toBe(200);
    expect(fetched.body.data).toEqual({ msg: 'no matching ads', success: true, ads: [] });
    expect(deadline().available).toBe(false);
    // liveness stays 200 (nothing to restart); readiness takes this process out of a load balancer
    const live = await t.http().get('/health');
    expect(live.status).toBe(200);
    expect(live.body.data).toEqual({ status: 'ok', database: 'up', redis: 'down' });
    const ready = await t.http().get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ code: 503, message: 'not ready: redis down', data: { ready: false, database: 'up', redis: 'down', closing: false } });

    redisServer.kill('SIGCONT');
    // the first click's scripts ran when Redis resumed, after its 503: they are undone
    await until(async () => deadline().late >= 1 && deadline().available && (await clickKeys()).length === 0);
    await until(async () => (await spentMicros()) === 0);

    const counted = await clickAd(t, publisher.apiKey, ad, user);
    expect(counted.status).toBe(200);
    expect(counted.body.data.msg).toBe('click counted');
    const duplicate = await clickAd(t, publisher.apiKey, ad, user);
    expect(duplicate.body.data.msg).toBe('duplicate click: not counted again');
    await flushStats(t);
    const campaign = await flushedCampaign(t, campaignId);
    expect(campaign.clicks).toBe(1);
    expect(campaign.cost).toBe(PRICE);
    expect(await spentMicros()).toBe(PRICE * 1_000_000);
  });

  it('should serve again once Redis answers', async () => {
    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body.data).toEqual({ ready: true, database: 'up', redis: 'up', closing: false });
    const ads: Body[] = await fetchAds(t, publisher.apiKey, block, newUser());
    expect(ads.map((ad) => ad.campaignId)).toEqual([campaignId]);
  });

  it('should answer a profile batch 503 with Retry-After while Redis is frozen, store nothing, and apply it when sent again after', async () => {
    const user = newUser();
    const batchesBefore = await countRows(t, 'profile_batches');
    const lateBefore = deadline().late;
    redisServer.kill('SIGSTOP');
    try {
      // its job is queued in Redis (BullMQ): within the Redis deadline, not whenever Redis answers
      const refused = await postBatch(t, publisher.apiKey, [{ messengerUserId: user, isPremium: true }]);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toEqual({ code: 503, message: 'redis unavailable: nothing was stored; retry after 1 s', data: { retryAfter: 1 } });
      expect(await countRows(t, 'profile_batches')).toBe(batchesBefore);
    } finally {
      redisServer.kill('SIGCONT');
    }
    // the job reached Redis once it resumed, after the 503: it finds no batch and applies nothing
    await until(async () => deadline().late > lateBefore && deadline().available);
    for (let i = 0; i < 10; i++) {
      expect(await storedProfile(t, user)).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await countRows(t, 'profile_batches')).toBe(batchesBefore);

    await uploadAndApply(t, publisher.apiKey, [{ messengerUserId: user, isPremium: true }]);
    expect(await storedProfile(t, user)).not.toBeNull();
    expect(await countRows(t, 'profile_batches')).toBe(batchesBefore + 1);
  });

  it('should answer a click on an ad served before Redis restarted empty 503 (never 400), and count clicks of new serves', async () => {
    const user = newUser();
    const [ad] = await fetchAds(t, publisher.apiKey, block, user);
    await flushStats(t);
    const before = await flushedCampaign(t, campaignId);
    await until(async () => (await redis.exists(...(await redis.keys('*stateepoch')))) === 1);

    await redis.flushall(); // what a restart without persistence leaves
    // the click itself finds the loss (before any periodic check), and while the loss settles (STATS_FLUSH_MS + 2 s
    // here) it is asked to come back shortly: the database may not hold the impression yet
    const rebuilding = await clickAd(t, publisher.apiKey, ad, user);
    expect([rebuilding.status, rebuilding.body.message]).toEqual([
      503,
      'impression records being rebuilt (the serving state restarted empty): retry shortly; nothing was stored',
    ]);
    expect(Number(rebuilding.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(rebuilding.headers['retry-after'])).toBeLessThanOrEqual(SETTLE_SECONDS);
    const [key] = await redis.keys('*stateepoch');
    expect(JSON.parse((await redis.get(key))!).loss).toBe(true);
    await until(async () => (await clickAd(t, publisher.apiKey, ad, user)).headers['retry-after'] === '3600', (SETTLE_SECONDS + 5) * 1000);
    const lost = await clickAd(t, publisher.apiKey, ad, user);
    expect(lost.status).toBe(503);
    expect(lost.headers['retry-after']).toBe('3600');
    expect(lost.body.message).toBe('impression records lost (the serving state restarted empty): this click cannot be matched now; nothing was stored');
    // a block where the campaign was never served: still no matching impression
    const otherBlock = await createAdBlock(t, publisher.apiKey, 'Never served');
    const unserved = await clickAd(t, publisher.apiKey, { ...ad, adBlockId: otherBlock }, user);
    expect(unserved.status).toBe(400);
    expect(unserved.body.message).toBe('no matching impression');

    // served again after the loss: its click binds and is billed once, the counters seeded from the database
    const again = newUser();
    const [served] = await fetchAds(t, publisher.apiKey, block, again);
    const counted = await clickAd(t, publisher.apiKey, served, again);
    expect(counted.body.data.msg).toBe('click counted');
    await flushStats(t);
    const after = await flushedCampaign(t, campaignId);
    expect(after.clicks).toBe(before.clicks + 1);
    expect(after.cost).toBeCloseTo(before.cost + PRICE, 6);
    expect(await spentMicros()).toBe(Math.round(after.cost * 1_000_000));
  });

  it('should keep a CPM budget within one unit through two losses of Redis in a row, its counters seeded from the database', async () => {
    // 20 units of 0.01 USDT; the index caches the campaign's spend as 0 until its next refresh (INDEX_REFRESH_MS,
    // 10 s here): counters seeded from that cache after a loss would make the units served before it spendable again
    const UNIT_MICROS = 10_000;
    const cpm = await createServable(
      t,
      advertiser.apiKey,
      openCampaign({ budget: { amount: 0.2, total: 0.2 }, bidding: { billingType: 'CPM', costPer: UNIT_MICROS / 1000 } }),
    );
    let served = 0;
    const serveOne = async (): Promise<boolean> => {
      const ads = await fetchAds(t, publisher.apiKey, block, newUser());
      const mine = ads.filter((ad) => ad.campaignId === cpm).length;
      served += mine;
      return mine > 0;
    };
    // (Redis lost its data in the test before: the new campaign's counters are seeded from a fresh read too)
    await until(serveOne);
    for (let i = 0; i < 5; i++) expect(await serveOne()).toBe(true);

    for (let loss = 0; loss < 2; loss++) {
      const [epochKey] = await redis.keys('*stateepoch');
      const before = await redis.get(epochKey);
      await redis.flushall();
      await until(async () => {
        const now = await redis.get(epochKey);
        return now !== null && now !== before;
      });
      // served again once the loss settled and the spend was read afresh; the counter holds at least the database's
      await until(serveOne);
      const [row] = await t.app.get(DataSource).query('SELECT spentMicros FROM campaigns WHERE id = ?', [cpm]);
      expect(await spentMicros(cpm)).toBeGreaterThanOrEqual(Number(row.spentMicros));
      for (let i = 0; i < 3; i++) await serveOne();
    }
    // then until the budget is spent: ten requests in a row without the campaign
    for (let none = 0; none < 10;) none = (await serveOne()) ? 0 : none + 1;

    const campaign = await flushedCampaign(t, cpm);
    expect(campaign.impressions).toBe(served);
    expect(Math.round(campaign.cost * 1_000_000)).toBe(served * UNIT_MICROS);
    expect(served * UNIT_MICROS).toBeGreaterThanOrEqual(200_000);
    expect(served * UNIT_MICROS).toBeLessThanOrEqual(200_000 + UNIT_MICROS);
  });

  async function spentMicros(id = campaignId): Promise<number> {
    const [key] = await redis.keys(`*spend:{c:${id}}`);
    return key === undefined ? 0 : Number(await redis.get(key));
  }
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until(check: () => Promise<boolean>, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`condition not met within ${limitMs} ms`);
}
