import { createHmac } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ManualClock } from '../../src/common/clock';
import { MetricsService } from '../../src/metrics/metrics.service';
import { TEST_PROFILE } from '../support/profile';
import { RewardReceiver, waitFor } from '../support/reward-receiver';
import { CLICK, UA } from '../support/serving-helpers';
import { BLOCK_BASE, blockDetail, Body, createServable, DAY, expectValidationError, fetchAds, newUser } from '../support/serving-fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { openCampaign, createAccount } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const MIN_VIEW_MS = 20_000;

describe(`Reward callbacks [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  const clock = new ManualClock();
  let receiver: RewardReceiver;
  let publisher: Account;
  let advertiser: Account;
  let campaignId: string;

  beforeAll(async () => {
    receiver = await new RewardReceiver().start();
    // the receiver is on loopback; the backoff is short so that retries run within the test
    t = await startTestApp({ VERIFICATION_ALLOW_PRIVATE: 'true', REWARD_BACKOFF_MS: '10' }, { clock });
    publisher = await createAccount(t, ['publisher'], 'Rewarded publisher');
    advertiser = await createAccount(t, ['advertiser'], 'Rewarded advertiser');
    campaignId = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }, clock.now()));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const newBlock = async (body: Body) =>
    (
      await t
        .http()
        .post(`${BLOCK_BASE}/create`)
        .set('x-api-key', publisher.apiKey)
        .send({ name: 'Extra life', format: 'rewarded', minViewMs: MIN_VIEW_MS, ...body })
        .expect(200)
    ).body.data.adBlockId as string;
  const serve = async (adBlockId: string, user: string, ua: string = UA.Android): Promise<Body> => {
    const ad = (await fetchAds(t, publisher.apiKey, adBlockId, user, { limit: 1, ua })).find((served) => served.campaignId === campaignId);
    if (!ad) throw new Error(`campaign not served to ${user}`);
    return ad;
  };
  const complete = async (ad: Body, user: string, ua: string = UA.Android): Promise<string> => {
    const response = await t
      .http()
      .post(CLICK)
      .set('x-api-key', publisher.apiKey)
      .set('user-agent', ua)
      .send({ eventType: 'complete', eventData: { adBlockId: ad.adBlockId, messengerUserId: user, adId: ad.adId, campaignId: ad.campaignId } });
    if (response.status !== 200)
      throw new Error(
        `complete answered ${response.status}: ${t.logs
          .filter((line) => line.includes('"level":50'))
          .slice(-3)
          .join('\n')}`,
      );
    return response.body.data.msg;
  };
  const rows = async (adBlockId: string): Promise<Body[]> =>
    (await t.app.get(DataSource).query('SELECT * FROM reward_deliveries WHERE adBlockId = ? ORDER BY createdAt, eventId', [adBlockId])).map((row: Body) => ({
      ...row,
      attempts: Number(row.attempts),
      lastStatusCode: row.lastStatusCode === null ? null : Number(row.lastStatusCode),
    }));
  const secret = async () =>
    (await t.http().get('/api/v2/openapi/account/me').set('x-api-key', publisher.apiKey).expect(200)).body.data.webhookSecret as string;
  const sign = (key: string, timestamp: string, rawBody: string) => createHmac('sha256', key).update(`${timestamp}.${rawBody}`).digest('hex');
  const rewardMetric = async (outcome: string) =>
    (await t.app.get(MetricsService).registry.getSingleMetric('adnet_reward_callbacks_total')!.get()).values.find((value) => value.labels.outcome === outcome)
      ?.value ?? 0;
  // the worker counts a try just after it stores it, so the row can be read before the count moves
  const rewardMetricReaching = (outcome: string, expected: number) =>
    waitFor(
      () => rewardMetric(outcome),
      (value) => value >= expected,
    );

  it('should send nothing for too-early, bot, unknown and repeated completions, and one signed call for a late one', async () => {
    const adBlockId = await newBlock({ rewardUrl: receiver.url('/ok') });
    const delivered = await rewardMetric('delivered');
    const user = newUser('late');
    const ad = await serve(adBlockId, user);
    expect(await complete(ad, user)).toBe("completion not counted: sooner than the block's minViewMs after the ad was served");
    expect(await complete(ad, newUser('unknown'))).toBe('completion not counted: no matching impression');
    const bot = newUser('bot');
    const botAd = await serve(adBlockId, bot);
    clock.advance(MIN_VIEW_MS);
    expect(await complete(botAd, bot, 'curl/8.4.0')).toBe('completion recorded as invalid traffic: not counted');
    expect(await complete(ad, user)).toBe('completion counted');
    expect(await complete(ad, user)).toBe('duplicate completion: not counted again');

    const [reward] = await waitFor(
      () => rows(adBlockId),
      (found) => found.length > 0 && found[0].status === 'delivered',
    );
    expect(await rows(adBlockId)).toHaveLength(1);
    expect(reward).toMatchObject({
      adBlockId,
      publisherId: publisher.accountId,
      messengerUserId: user,
      campaignId,
      adId: ad.adId,
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
    });
    const calls = receiver.calls.filter((call) => call.body.adBlockId === adBlockId);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call.body).toEqual({
      eventId: reward.eventId,
      eventType: 'complete',
      adBlockId,
      messengerUserId: user,
      openId: user,
      type: 'messenger',
      campaignId,
      adId: ad.adId,
      rewardedAt: Number(reward.createdAt),
    });
    expect(call.headers['content-type']).toBe('application/json');
    const timestamp = call.headers['x-adnet-timestamp'] as string;
    expect(call.headers['x-adnet-signature']).toBe(sign(await secret(), timestamp, call.rawBody));
    expect(call.headers).not.toHaveProperty('x-adnet-signature-previous');
    expect(await rewardMetricReaching('delivered', delivered + 1)).toBe(delivered + 1);
    const detail = await blockDetail(t, publisher.apiKey, adBlockId);
    expect([detail.completions, detail.rewardsCapped]).toEqual([1, 0]);
  });

  it('should retry a failing receiver with the same eventId until it takes it, and log it delivered', async () => {
    const adBlockId = await newBlock({ rewardUrl: receiver.url('/flaky') });
    const [retried, delivered] = [await rewardMetric('retried'), await rewardMetric('delivered')];
    const user = newUser('flaky');
    const ad = await serve(adBlockId, user);
    clock.advance(MIN_VIEW_MS);
    expect(await complete(ad, user)).toBe('completion counted');
    const [reward] = await waitFor(
      () => rows(adBlockId),
      (found) => found.length > 0 && found[0].status === 'delivered',
    );
    expect(reward).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200, lastError: null });
    const calls = receiver.callsOf(reward.eventId);
    expect(calls.map((call) => call.status)).toEqual([500, 500, 200]);
    // the same body every time, each signed at its own time
    expect(new Set(calls.map((call) => call.rawBody)).size).toBe(1);
    for (const call of calls) expect(call.headers['x-adnet-signature']).toBe(sign(await secret(), call.headers['x-adnet-timestamp'] as string, call.rawBody));
    expect([await rewardMetricReaching('retried', retried + 2), await rewardMetricReaching('delivered', delivered + 1)]).toEqual([retried + 2, delivered + 1]);
  });

  it('should log a receiver that never takes it as failed after every try', async () => {
    const adBlockId = await newBlock({ rewardUrl: receiver.url('/down') });
    const failed = await rewardMetric('failed');
    const user = newUser('down');
    const ad = await serve(adBlockId, user);
    clock.advance(MIN_VIEW_MS);
    await complete(ad, user);
    const [reward] = await waitFor(
      () => rows(adBlockId),
      (found) => found.length > 0 && found[0].status === 'failed',
    );
    expect(reward).toMatchObject({ status: 'failed', attempts: 10, lastStatusCode: 503, lastError: 'HTTP 503', deliveredAt: null });
    expect(receiver.callsOf(reward.eventId)).toHaveLength(10);
    expect(await rewardMetricReaching('failed', failed + 1)).toBe(failed + 1);
  });

  it('should send at most dailyRewardCap rewards per user and day, counting the rest as rewardsCapped', async () => {
    const adBlockId = await newBlock({ rewardUrl: receiver.url('/ok'), dailyRewardCap: 2 });
    const capped = await rewardMetric('capped');
    const user = newUser('capped');
    const other = newUser('uncapped');
    for (let i = 0; i < 3; i++) {
      const ad = await serve(adBlockId, user);
      clock.advance(MIN_VIEW_MS);
      expect(await complete(ad, user)).toBe('completion counted');
    }
    const otherAd = await serve(adBlockId, other);
    clock.advance(MIN_VIEW_MS);
    await complete(otherAd, other);
    const found = await waitFor(
      () => rows(adBlockId),
      (all) => all.length === 3 && all.every((row) => row.status === 'delivered'),
    );
    expect(found.map((row) => row.messengerUserId)).toEqual([user, user, other]);
    expect(receiver.calls.filter((call) => call.body.adBlockId === adBlockId)).toHaveLength(3);
    const detail = await blockDetail(t, publisher.apiKey, adBlockId);
    expect([detail.completions, detail.rewardsCapped]).toEqual([4, 1]);
    expect(await rewardMetric('capped')).toBe(capped + 1);
  });

  it('should sign with the previous secret too for 24 h after a rotation', async () => {
    const adBlockId = await newBlock({ rewardUrl: receiver.url('/ok') });
    const old = await secret();
    await t.http().post('/api/v2/openapi/account/webhook-secret/rotate').set('x-api-key', publisher.apiKey).expect(200);
    const current = await secret();
    expect(current).not.toBe(old);
    const deliverOne = async () => {
      const user = newUser('rotation');
      const ad = await serve(adBlockId, user);
      clock.advance(MIN_VIEW_MS);
      await complete(ad, user);
      const done = await waitFor(
        () => rows(adBlockId),
        (all) => all.some((row) => row.messengerUserId === user && row.status === 'delivered'),
      );
      return receiver.callsOf(done.find((row) => row.messengerUserId === user)!.eventId)[0];
    };
    const soon = await deliverOne();
    const timestamp = soon.headers['x-adnet-timestamp'] as string;
    expect(soon.headers['x-adnet-signature']).toBe(sign(current, timestamp, soon.rawBody));
    expect(soon.headers['x-adnet-signature-previous']).toBe(sign(old, timestamp, soon.rawBody));
    clock.advance(DAY);
    const later = await deliverOne();
    expect(later.headers['x-adnet-signature']).toBe(sign(current, later.headers['x-adnet-timestamp'] as string, later.rawBody));
    expect(later.headers).not.toHaveProperty('x-adnet-signature-previous');
  });

  it('should send nothing for a banner block or a rewarded block without rewardUrl, counting the completion', async () => {
    const banner = await newBlock({ format: 'banner', rewardUrl: receiver.url('/ok') });
    const noUrl = await newBlock({});
    for (const adBlockId of [banner, noUrl]) {
      const user = newUser('no-reward');
      const ad = await serve(adBlockId, user);
      clock.advance(MIN_VIEW_MS);
      expect(await complete(ad, user)).toBe('completion counted');
      expect(await rows(adBlockId)).toEqual([]);
      expect((await blockDetail(t, publisher.apiKey, adBlockId)).completions).toBe(1);
    }
    expect(receiver.calls.filter((call) => call.body.adBlockId === banner || call.body.adBlockId === noUrl)).toEqual([]);
  });

  describe('delivery log, replay and test call', () => {
    let adBlockId: string;
    let other: Account;
    let serveKey: string;
    const log = (query: Body, key = publisher.apiKey) => t.http().get(`${BLOCK_BASE}/rewards`).query(query).set('x-api-key', key);
    const replay = (body: Body, key = publisher.apiKey) => t.http().post(`${BLOCK_BASE}/rewards/replay`).set('x-api-key', key).send(body);
    const test = (body: Body, key = publisher.apiKey) => t.http().post(`${BLOCK_BASE}/rewards/test`).set('x-api-key', key).send(body);

    beforeAll(async () => {
      other = await createAccount(t, ['publisher'], 'Other publisher');
      serveKey = (await t.http().post('/api/v2/openapi/account/keys').set('x-api-key', publisher.apiKey).send({ scope: 'serve' }).expect(200)).body.data.apiKey;
      adBlockId = await newBlock({ rewardUrl: receiver.url('/flaky') });
      for (const tag of ['log-a', 'log-b']) {
        const user = newUser(tag);
        const ad = await serve(adBlockId, user);
        clock.advance(MIN_VIEW_MS);
        await complete(ad, user);
      }
      await waitFor(
        () => rows(adBlockId),
        (found) => found.length === 2 && found.every((row) => row.status === 'delivered'),
      );
    });

    it('should list the rewards newest first with their delivery, filtered by status and paged', async () => {
      const stored = await rows(adBlockId);
      const response = await log({ adBlockId }).expect(200);
      expect(response.body).toEqual({
        code: 0,
        message: 'success',
        data: {
          rewards: [...stored].reverse().map((row) => ({
            eventId: row.eventId,
            messengerUserId: row.messengerUserId,
            campaignId,
            status: 'delivered',
            attempts: 3,
            lastStatusCode: 200,
            lastError: null,
            createdAt: Number(row.createdAt),
            deliveredAt: Number(row.deliveredAt),
          })),
          total: 2,
          current: 1,
          pageSize: 20,
        },
      });
      const paged = (await log({ adBlockId, pageSize: 1, current: 2 }).expect(200)).body.data;
      expect([paged.rewards.map((reward: Body) => reward.eventId), paged.total]).toEqual([[stored[0].eventId], 2]);
      expect((await log({ adBlockId, status: 'failed' }).expect(200)).body.data).toEqual({ rewards: [], total: 0, current: 1, pageSize: 20 });
      expect((await log({ adBlockId, status: 'delivered' }).expect(200)).body.data.total).toBe(2);
    });

    it('should replay a reward with the same eventId and log the new try', async () => {
      const [first] = await rows(adBlockId);
      const before = receiver.callsOf(first.eventId).length;
      const answered = await replay({ eventId: first.eventId }).expect(200);
      expect(answered.body.data).toMatchObject({ eventId: first.eventId, status: expect.stringMatching(/^(pending|delivered)$/) });
      const after = await waitFor(
        () => rows(adBlockId),
        (found) => found[0].attempts === 4 && found[0].status === 'delivered',
      );
      expect(after[0]).toMatchObject({ eventId: first.eventId, status: 'delivered', attempts: 4, lastStatusCode: 200 });
      const calls = receiver.callsOf(first.eventId);
      expect(calls).toHaveLength(before + 1);
      expect(calls[calls.length - 1].rawBody).toBe(calls[0].rawBody);
      expect(calls[calls.length - 1].headers['x-adnet-signature']).toBe(
        sign(await secret(), calls[calls.length - 1].headers['x-adnet-timestamp'] as string, calls[0].rawBody),
      );
    });

    it('should send a signed test call at once and answer its status code', async () => {
      const okBlock = await newBlock({ rewardUrl: receiver.url('/ok') });
      const response = await test({ adBlockId: okBlock }).expect(200);
      expect(response.body.data).toEqual({ statusCode: 200, ms: expect.any(Number), error: null });
      const [call] = receiver.calls.filter((received) => received.body.adBlockId === okBlock);
      expect(call.body).toEqual(expect.objectContaining({ eventType: 'test', adBlockId: okBlock, eventId: expect.stringMatching(/^test_/) }));
      expect(call.headers['x-adnet-signature']).toBe(sign(await secret(), call.headers['x-adnet-timestamp'] as string, call.rawBody));
      expect(await rows(okBlock)).toEqual([]);
      const down = await newBlock({ rewardUrl: receiver.url('/down') });
      expect((await test({ adBlockId: down }).expect(200)).body.data).toEqual({ statusCode: 503, ms: expect.any(Number), error: 'HTTP 503' });
      const noUrl = await newBlock({});
      const refused = await test({ adBlockId: noUrl });
      expect([refused.status, refused.body.code, refused.body.message]).toEqual([409, 409, 'adBlockId: the ad block has no rewardUrl']);
    });

    it("should refuse a serve key (403), another publisher's block or reward like an unknown one (404), and bad input (400)", async () => {
      const [first] = await rows(adBlockId);
      for (const response of [await log({ adBlockId }, serveKey), await replay({ eventId: first.eventId }, serveKey), await test({ adBlockId }, serveKey)]) {
        expect([response.status, response.body.code]).toEqual([403, 403]);
      }
      const attempts = (await rows(adBlockId))[0].attempts;
      const foreignLog = await log({ adBlockId }, other.apiKey);
      const unknownLog = await log({ adBlockId: '01hzzzzzzzzzzzzzzzzzzzzzzz' });
      expect([foreignLog.status, foreignLog.body]).toEqual([unknownLog.status, unknownLog.body]);
      expect(foreignLog.status).toBe(404);
      const foreignReplay = await replay({ eventId: first.eventId }, other.apiKey);
      const unknownReplay = await replay({ eventId: 'rw_unknown' });
      expect([foreignReplay.status, foreignReplay.body]).toEqual([
        404,
        { code: 404, message: 'eventId: reward not found', data: { errors: [{ field: 'eventId', message: 'reward not found' }] } },
      ]);
      expect([unknownReplay.status, unknownReplay.body]).toEqual([foreignReplay.status, foreignReplay.body]);
      expect((await test({ adBlockId }, other.apiKey)).status).toBe(404);
      expect((await log({ adBlockId }, advertiser.apiKey)).status).toBe(403);
      const bad: [() => ReturnType<typeof log>, string][] = [
        [() => log({}), 'adBlockId'],
        [() => log({ adBlockId, status: 'sent' }), 'status'],
        [() => log({ adBlockId, pageSize: 0 }), 'pageSize'],
        [() => log({ adBlockId, current: 'x' }), 'current'],
        [() => replay({}), 'eventId'],
        [() => replay({ eventId: 7 }), 'eventId'],
        [() => test({}), 'adBlockId'],
        [() => test({ adBlockId: '' }), 'adBlockId'],
      ];
      for (const [send, field] of bad) expectValidationError(await send(), field);
      expect((await rows(adBlockId))[0].attempts).toBe(attempts);
    });
  });

  // last: on MySQL a second application rebuilds the schema the first one uses
  it('should refuse to call a reward URL that leads to a non-public address unless private targets are allowed', async () => {
    const guarded = await startTestApp({ REWARD_BACKOFF_MS: '10', REWARD_ATTEMPTS: '2' }, { clock });
    try {
      const owner = await createAccount(guarded, ['publisher'], 'Guarded publisher');
      const buyer = await createAccount(guarded, ['advertiser'], 'Guarded advertiser');
      const guardedCampaign = await createServable(guarded, buyer.apiKey, openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }, clock.now()));
      const adBlockId = (
        await guarded
          .http()
          .post(`${BLOCK_BASE}/create`)
          .set('x-api-key', owner.apiKey)
          .send({ name: 'Guarded', format: 'rewarded', minViewMs: MIN_VIEW_MS, rewardUrl: 'https://rewards.example.com/hook' })
          .expect(200)
      ).body.data.adBlockId;
      // as if the name now resolved to loopback: the call-time guard decides, whatever was saved
      await guarded.app.get(DataSource).query('UPDATE ad_blocks SET rewardUrl = ? WHERE id = ?', [receiver.url('/ok'), adBlockId]);
      const user = newUser('ssrf');
      const ad = (await fetchAds(guarded, owner.apiKey, adBlockId, user, { limit: 1 })).find((served) => served.campaignId === guardedCampaign)!;
      clock.advance(MIN_VIEW_MS);
      await guarded
        .http()
        .post(CLICK)
        .set('x-api-key', owner.apiKey)
        .send({ eventType: 'complete', eventData: { adBlockId, messengerUserId: user, adId: ad.adId, campaignId: guardedCampaign } })
        .expect(200);
      const read = async () =>
        (await guarded.app.get(DataSource).query('SELECT status, attempts, lastError FROM reward_deliveries WHERE adBlockId = ?', [adBlockId])) as Body[];
      const [reward] = await waitFor(read, (found) => found.length > 0 && found[0].status === 'failed');
      expect({ ...reward, attempts: Number(reward.attempts) }).toEqual({
        status: 'failed',
        attempts: 2,
        lastError: 'refused: 127.0.0.1 resolves to the non-public address 127.0.0.1',
      });
      expect(receiver.calls.filter((call) => call.body.adBlockId === adBlockId)).toEqual([]);
      const tested = await guarded.http().post(`${BLOCK_BASE}/rewards/test`).set('x-api-key', owner.apiKey).send({ adBlockId }).expect(200);
      expect(tested.body.data).toEqual({ statusCode: null, ms: expect.any(Number), error: 'refused: 127.0.0.1 resolves to the non-public address 127.0.0.1' });
      expect(receiver.calls.filter((call) => call.body.adBlockId === adBlockId)).toEqual([]);
    } finally {
      await guarded.close();
    }
  });
});
