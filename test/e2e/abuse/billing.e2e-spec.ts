import { DataSource } from 'typeorm';
import { Clock } from '../../../src/common/clock';
import { TRUST_CONFIG, TrustConfig } from '../../../src/trust/trust.config';
import { Click } from '../../../src/clicks/entities/click.entity';
import { ExchangeStatsWriterService } from '../../../src/exchange/exchange-stats-writer.service';
import { budgetDayAt } from '../../../src/common/time-zone';
import { REDIS, type RedisClient } from '../../../src/redis/redis.module';
import { RedisServingState } from '../../../src/serving/state/redis-serving-state';
import { stateKeys } from '../../../src/serving/state/serving-state';
import { closeTestRedis, TEST_PROFILE, testRedis } from '../../support/profile';
import { ADMIN_KEY, BROWSER_USER_AGENT, startTestApp, TestApp } from '../../support/test-app';
import { UA } from '../../support/serving-helpers';
import {
  blockDetail,
  Body,
  clickAd,
  createServable,
  endAllCampaigns,
  fetchAds,
  fetchRaw,
  flushedCampaign,
  HOUR,
  MINUTE,
  newUser,
  setStatus,
} from '../../support/serving-fixtures';
import { createAccount, createAdBlock, openCampaign } from '../../support/factories';

/**
 * Attacks on the bill, replayed black-box: a publisher key is public (it lives in end users' frontends), so anybody
 * can fetch ads and report clicks with it. Every figure is checked exactly. Rules: docs/TRUST_AND_SAFETY.md.
 */

type Account = { accountId: string; apiKey: string };

/** A clock that moves only when told to: "100 ms after the impression" is exactly that. */
class SteppedClock extends Clock {
  private time = Date.now();
  override now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

const COUNTED = { code: 0, message: 'success', data: { status: 'success', msg: 'click counted' } };
const DUPLICATE = { code: 0, message: 'success', data: { status: 'success', msg: 'duplicate click: not counted again' } };
const UNBILLED = { code: 0, message: 'success', data: { status: 'success', msg: 'click recorded, not billed: the campaign is not billable now' } };
/** An invalid click's answer names its reason (src/clicks/click-messages.ts). */
const INVALID = (reason: string) => ({ code: 0, message: 'success', data: { status: 'success', msg: `click recorded as invalid traffic: ${reason}` } });
const BOT_AGENTS = ['curl/8.5.0', 'python-requests/2.31', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', ''];
const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';
/** Past MIN_CLICK_DELAY_MS: a human click. */
const HUMAN_DELAY = 2000;

describe('Abuse: the bill', () => {
  let t: TestApp;
  const clock = new SteppedClock();
  let publisher: Account;
  let advertiser: Account;

  beforeAll(async () => {
    // MIN_CLICK_DELAY_MS unset (empty): the service's default (300 ms), not the test app's 0.
    t = await startTestApp({ TRUST_PROXY: 'true', MIN_CLICK_DELAY_MS: '' }, { clock });
    expect(t.app.get<TrustConfig>(TRUST_CONFIG).minClickDelayMs).toBe(300);
    publisher = await createAccount(t, ['publisher'], 'Publisher');
    advertiser = await createAccount(t, ['advertiser'], 'Advertiser');
  });
  afterAll(() => t.close());
  beforeEach(() => endAllCampaigns(t));

  const campaign = ({ verificationUrl, ...body }: Body) =>
    createServable(t, advertiser.apiKey, { ...openCampaign(body, clock.now()), ...(verificationUrl ? { verificationUrl } : {}) });
  const serve = async (campaignId: string, user: string, block: string, ua?: string | null): Promise<Body> => {
    const ads = await fetchAds(t, publisher.apiKey, block, user, { limit: 9, ua });
    const ad = ads.find((a) => a.campaignId === campaignId);
    if (!ad) throw new Error(`campaign ${campaignId} not served to ${user}: ${JSON.stringify(ads.map((a) => a.campaignId))}`);
    return ad;
  };
  const click = (ad: Body, user: string, ua?: string) => {
    const request = clickAd(t, publisher.apiKey, ad, user);
    return ua === undefined ? request : request.set('user-agent', ua);
  };
  const figures = async (campaignId: string, block: string) => {
    const c = await flushedCampaign(t, campaignId);
    const b = await blockDetail(t, ADMIN_KEY, block);
    return {
      campaign: pick(c, ['impressions', 'clicks', 'unbilledClicks', 'invalidClicks', 'invalidImpressions', 'cost', 'conversions']),
      block: pick(b, ['impressions', 'clicks', 'unbilledClicks', 'invalidClicks', 'invalidImpressions', 'earnings']),
    };
  };
  const clickRows = (campaignId: string) =>
    t.app
      .get(DataSource)
      .getRepository(Click)
      .find({ where: { campaignId }, order: { id: 'ASC' } });

  describe('one click per impression', () => {
    it('should count and bill a served ad once, also re-clicked after 10 minutes and after 23 hours', async () => {
      const block = await createAdBlock(t, publisher.apiKey, 'reclick');
      const campaignId = await campaign({ bidding: { billingType: 'CPC', costPer: 0.3 } });
      const user = newUser('reclick');
      const ad = await serve(campaignId, user, block);
      clock.advance(HUMAN_DELAY);
      expect((await click(ad, user)).body).toEqual(COUNTED);

      clock.advance(11 * MINUTE);
      expect((await click(ad, user)).body).toEqual(DUPLICATE);
      clock.advance(23 * HOUR - 11 * MINUTE);
      expect((await click(ad, user)).body).toEqual(DUPLICATE);

      expect(await figures(campaignId, block)).toEqual({
        campaign: { impressions: 1, clicks: 1, unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 0, cost: 0.3, conversions: 0 },
        block: { impressions: 1, clicks: 1, unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 0, earnings: 0.21 },
      });
      expect((await clickRows(campaignId)).map((row) => [row.status, row.costMicros])).toEqual([['counted', 300_000]]);
    });

    it('should let a new serve of the same ad (after the 10-minute exclusion) take one click of its own', async () => {
      const block = await createAdBlock(t, publisher.apiKey, 'reserve');
      const campaignId = await campaign({ bidding: { billingType: 'CPC', costPer: 0.2 } });
      const user = newUser('reserve');
      const first = await serve(campaignId, user, block);
      clock.advance(HUMAN_DELAY);
      expect((await click(first, user)).body).toEqual(COUNTED);
      // rule 6 in production: not served again to that user within 10 minutes
      expect((await fetchAds(t, publisher.apiKey, block, user)).map((a) => a.campaignId)).toEqual([]);

      clock.advance(10 * MINUTE);
      const second = await serve(campaignId, user, block);
      clock.advance(HUMAN_DELAY);
      expect((await click(second, user)).body).toEqual(COUNTED);
      expect((await click(second, user)).body).toEqual(DUPLICATE);
      expect((await figures(campaignId, block)).campaign).toEqual(expect.objectContaining({ impressions: 2, clicks: 2, cost: 0.4 }));
    });
  });

  describe('billing only while billable', () => {
    const expectUnbilledOnly = async (campaignId: string, block: string) => {
      expect(await figures(campaignId, block)).toEqual({
        campaign: { impressions: 1, clicks: 0, unbilledClicks: 1, invalidClicks: 0, invalidImpressions: 0, cost: 0, conversions: 0 },
        block: { impressions: 1, clicks: 0, unbilledClicks: 1, invalidClicks: 0, invalidImpressions: 0, earnings: 0 },
      });
      expect((await clickRows(campaignId)).map((row) => [row.status, row.costMicros, row.earningsMicros, row.verificationStatus])).toEqual([
        ['unbilled', 0, 0, 'none'],
      ]);
    };

    for (const status of ['end', 'paused'] as const) {
      it(`should record a click on a ${status === 'end' ? 'ended' : 'paused'} campaign as unbilled: success, spend unchanged, clicks unchanged`, async () => {
        const block = await createAdBlock(t, publisher.apiKey, `after ${status}`);
        const campaignId = await campaign({ bidding: { billingType: 'CPC', costPer: 0.25 }, verificationUrl: 'https://verify.example.com/check' });
        const user = newUser(status);
        const ad = await serve(campaignId, user, block);
        clock.advance(HUMAN_DELAY);
        // no index refresh: the click must not rely on this process having heard of the change
        await setStatus(t, advertiser.apiKey, campaignId, status);
        expect((await click(ad, user)).body).toEqual(UNBILLED);
        expect((await click(ad, user)).body).toEqual(DUPLICATE);
        await expectUnbilledOnly(campaignId, block);

        // and a conversion of that user is not attributed to it
        await t
          .http()
          .post(CONVERSION)
          .set('x-api-key', advertiser.apiKey)
          .send({ eventType: 'conversion', eventData: { messengerUserId: user } })
          .expect(200);
        expect((await flushedCampaign(t, campaignId)).conversions).toBe(0);
      });
    }

    it("should record a click after the campaign's endTime as unbilled", async () => {
      const block = await createAdBlock(t, publisher.apiKey, 'after endTime');
      const campaignId = await createServable(
        t,
        advertiser.apiKey,
        openCampaign({ bidding: { billingType: 'CPC', costPer: 0.25 }, budget: { startTime: clock.now() - HOUR, endTime: clock.now() + HOUR } }),
      );
      const user = newUser('late');
      const ad = await serve(campaignId, user, block);
      clock.advance(HOUR);
      expect((await click(ad, user)).body).toEqual(UNBILLED);
      await expectUnbilledOnly(campaignId, block);
    });

    it('should record a click on a campaign out of budget as unbilled', async () => {
      const block = await createAdBlock(t, publisher.apiKey, 'spent');
      const campaignId = await campaign({ budget: { amount: 0.5, total: 0.5 }, bidding: { billingType: 'CPC', costPer: 0.5 } });
      const [first, second] = [newUser('spent'), newUser('spent')];
      const firstAd = await serve(campaignId, first, block);
      const secondAd = await serve(campaignId, second, block);
      clock.advance(HUMAN_DELAY);
      expect((await click(firstAd, first)).body).toEqual(COUNTED);
      expect((await click(secondAd, second)).body).toEqual(UNBILLED);
      expect(await figures(campaignId, block)).toEqual({
        campaign: { impressions: 2, clicks: 1, unbilledClicks: 1, invalidClicks: 0, invalidImpressions: 0, cost: 0.5, conversions: 0 },
        block: { impressions: 2, clicks: 1, unbilledClicks: 1, invalidClicks: 0, invalidImpressions: 0, earnings: 0.35 },
      });
    });
  });

  // A serving process cut off from Redis (or frozen) past its lease holder's life loses its leases to the other
  // processes, with the impressions it served in its last bill interval; its bill, once it comes, must not pass a
  // budget they spent meanwhile (docs/SCALING.md). Redis serving state only: the embedded one is one process.
  if (TEST_PROFILE === 'mysql')
    describe('a serving process cut off past its lease life', () => {
      it('should not bill past the budget what it served before, when the others spent the budget meanwhile', async () => {
        const redis = t.app.get<RedisClient>(REDIS);
        // the other processes on a client of their own: defining the scripts on the app's would undo the hold below
        const othersClient = testRedis({ keyPrefix: (redis.options as { keyPrefix?: string }).keyPrefix, maxRetriesPerRequest: 1 });
        const others = new RedisServingState(othersClient);
        const scripted = redis as unknown as { adnetBill: (...args: (string | number)[]) => Promise<number[]> };
        const realBill = scripted.adnetBill;
        let release: () => void = () => undefined;
        const held = new Promise<void>((resolve) => (release = resolve));
        // the process's bills wait (as if cut off) until the others have spent the budget; the real script is put
        // back before they go on (with auto-pipelining the client calls its own property again)
        scripted.adnetBill = async (...args) => {
          await held;
          return realBill.apply(redis, args);
        };
        const reconnect = () => {
          scripted.adnetBill = realBill;
          release();
        };
        try {
          const block = await createAdBlock(t, publisher.apiKey, 'cut-off');
          // CPM 2.5 USDT: 2,500 micro-USDT an impression, budgets of 4 impressions
          const campaignId = await campaign({ budget: { amount: 0.01, total: 0.01 }, bidding: { billingType: 'CPM', costPer: 2.5 } });
          const ad = await serve(campaignId, newUser('cut-off'), block);
          // its heartbeat lapses and another process reclaims its lease, the served impression's unit with it
          const leases = stateKeys.campaignLeases(campaignId);
          for (const field of await redis.hkeys(leases)) await redis.del(stateKeys.leaseHolder(field.split('|')[0]));
          expect(await others.reclaimLapsedHolders()).toBe(2500);
          const day = budgetDayAt({ timeZone: 'UTC', nextTimeZone: null, timeZoneChangesAt: null }, clock.now()).key;
          const candidate = {
            campaignId,
            adId: ad.adId as string,
            priceMicros: 2500,
            totalBudgetMicros: 10_000,
            dailyBudgetMicros: 10_000,
            knownSpentMicros: 0,
            knownDaySpentMicros: 0,
            day,
          };
          const reserve = (user: string) => others.reserveImpressions({ userId: user, adBlockId: block, now: clock.now(), limit: 1 }, [candidate]);
          for (let i = 0; i < 4; i++) expect((await reserve(newUser('others'))).served).toEqual([0]);
          expect((await reserve(newUser('others'))).served).toEqual([]);
          await others.flushBills();
          expect(Number(await redis.get(stateKeys.spent(campaignId)))).toBe(10_000);

          reconnect();
          // its bill comes: the budget has no room, so the impression it served stays counted and is not billed; the
          // publisher keeps its earnings (the network bears them)
          expect(await figures(campaignId, block)).toEqual({
            campaign: { impressions: 1, clicks: 0, unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 0, cost: 0, conversions: 0 },
            block: { impressions: 1, clicks: 0, unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 0, earnings: 0.00175 },
          });
          expect(Number(await redis.get(stateKeys.spent(campaignId)))).toBe(10_000);
          expect(Number(await redis.get(stateKeys.daySpent(campaignId, day)))).toBe(10_000);
          const metrics = await t.http().get('/metrics').set('x-api-key', ADMIN_KEY).expect(200);
          expect(metrics.text).toMatch(/^adnet_impression_spend_waived_micros_total 2500$/m);
        } finally {
          reconnect();
          await others.beforeApplicationShutdown();
          await closeTestRedis(othersClient);
        }
      });
    });

  describe('general invalid traffic', () => {
    it('should serve 300 made-up users with bot and empty agents as usual, billing nothing, and keep the budget whole', async () => {
      const block = await createAdBlock(t, publisher.apiKey, 'bots');
      // 0.01 USDT per impression: 1 USDT lasts 100 impressions
      const campaignId = await campaign({ budget: { amount: 1, total: 1 }, bidding: { billingType: 'CPM', costPer: 10 } });
      const answers: number[] = [];
      for (let from = 0; from < 300; from += 50) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            fetchRaw(t, publisher.apiKey, block, newUser('bot'), { limit: 1, ua: BOT_AGENTS[(from + i) % BOT_AGENTS.length] }),
          ),
        );
        for (const response of batch) {
          expect(response.status).toBe(200);
          answers.push((response.body.data.ads as Body[]).filter((ad) => ad.campaignId === campaignId).length);
        }
      }
      expect(answers.every((served) => served === 1)).toBe(true);
      expect(await figures(campaignId, block)).toEqual({
        campaign: { impressions: 0, clicks: 0, unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 300, cost: 0, conversions: 0 },
        block: { impressions: 0, clicks: 0, unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 300, earnings: 0 },
      });
      expect((await flushedCampaign(t, campaignId)).deliveryStatus).toBe('delivering');

      // a browser afterwards is served and billed exactly one unit
      await serve(campaignId, newUser('human'), block, BROWSER_USER_AGENT);
      expect(await figures(campaignId, block)).toEqual({
        campaign: { impressions: 1, clicks: 0, unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 300, cost: 0.01, conversions: 0 },
        block: { impressions: 1, clicks: 0, unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 300, earnings: 0.007 },
      });
    });

    it('should serve 300 made-up users with a browser agent from data-centre addresses (X-Forwarded-For) as usual, billing nothing', async () => {
      const block = await createAdBlock(t, publisher.apiKey, 'data centres');
      const campaignId = await campaign({ budget: { amount: 1, total: 1 }, bidding: { billingType: 'CPM', costPer: 10 } });
      // AWS, DigitalOcean, Hetzner (IPv4 and IPv6) and AWS as an IPv4-mapped address: listed by @ip-location-db/asn
      const DATA_CENTRES = ['3.5.140.2', '167.99.241.66', '85.10.199.76', '2a01:4f8::1', '::ffff:3.5.140.2'];
      const served: number[] = [];
      for (let from = 0; from < 300; from += 50) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            fetchRaw(t, publisher.apiKey, block, newUser('dc'), { limit: 1, ua: BROWSER_USER_AGENT, ip: DATA_CENTRES[(from + i) % DATA_CENTRES.length] }),
          ),
        );
        for (const response of batch) {
          expect(response.status).toBe(200);
          served.push((response.body.data.ads as Body[]).filter((ad) => ad.campaignId === campaignId).length);
        }
      }
      expect(served.every((count) => count === 1)).toBe(true);
      // a click from the data centre on one of those impressions is invalid too
      const user = newUser('dc-clicker');
      const ads = await fetchAds(t, publisher.apiKey, block, user, { limit: 1, ua: BROWSER_USER_AGENT, ip: DATA_CENTRES[0] });
      clock.advance(HUMAN_DELAY);
      expect((await click(ads[0], user, BROWSER_USER_AGENT).set('x-forwarded-for', DATA_CENTRES[0]).expect(200)).body).toEqual(
        INVALID('a data-centre network'),
      );
      expect(await figures(campaignId, block)).toEqual({
        campaign: { impressions: 0, clicks: 0, unbilledClicks: 0, invalidClicks: 1, invalidImpressions: 301, cost: 0, conversions: 0 },
        block: { impressions: 0, clicks: 0, unbilledClicks: 0, invalidClicks: 1, invalidImpressions: 301, earnings: 0 },
      });
      expect((await clickRows(campaignId)).map((row) => [row.status, row.invalidReason, row.costMicros])).toEqual([['invalid', 'datacenter', 0]]);

      // a residential address afterwards is served and billed exactly one unit
      const human = newUser('home');
      const homeAds = await fetchAds(t, publisher.apiKey, block, human, { limit: 1, ua: BROWSER_USER_AGENT, ip: '73.162.10.20' });
      expect(homeAds.map((ad) => ad.campaignId)).toEqual([campaignId]);
      expect(await figures(campaignId, block)).toEqual({
        campaign: { impressions: 1, clicks: 0, unbilledClicks: 0, invalidClicks: 1, invalidImpressions: 301, cost: 0.01, conversions: 0 },
        block: { impressions: 1, clicks: 0, unbilledClicks: 0, invalidClicks: 1, invalidImpressions: 301, earnings: 0.007 },
      });
    });

    it('should count a click 100 ms after its impression as invalid under the default minimum delay, billing nothing', async () => {
      const block = await createAdBlock(t, publisher.apiKey, 'too soon');
      const campaignId = await campaign({ bidding: { billingType: 'CPC', costPer: 0.4 } });
      const [fast, human] = [newUser('fast'), newUser('human')];
      const fastAd = await serve(campaignId, fast, block);
      const humanAd = await serve(campaignId, human, block);
      clock.advance(100);
      expect((await click(fastAd, fast)).body).toEqual(INVALID('too soon after the impression'));
      // the impression is used up: a later click on it is a repeat
      clock.advance(200);
      expect((await click(fastAd, fast)).body).toEqual(DUPLICATE);
      // exactly the minimum delay is in time
      expect((await click(humanAd, human)).body).toEqual(COUNTED);
      expect(await figures(campaignId, block)).toEqual({
        campaign: { impressions: 2, clicks: 1, unbilledClicks: 0, invalidClicks: 1, invalidImpressions: 0, cost: 0.4, conversions: 0 },
        block: { impressions: 2, clicks: 1, unbilledClicks: 0, invalidClicks: 1, invalidImpressions: 0, earnings: 0.28 },
      });
      expect((await clickRows(campaignId)).map((row) => [row.messengerUserId, row.status, row.invalidReason, row.costMicros])).toEqual([
        [fast, 'invalid', 'tooSoon', 0],
        [human, 'counted', null, 400_000],
      ]);
    });

    it("should count as invalid a bot's click and a click on an impression served to a bot, billing nothing", async () => {
      const block = await createAdBlock(t, publisher.apiKey, 'bot clicks');
      const campaignId = await campaign({ bidding: { billingType: 'CPC', costPer: 0.4 }, verificationUrl: 'https://verify.example.com/check' });
      const [botServed, botClicker] = [newUser('bot-served'), newUser('bot-clicker')];
      const botAd = await serve(campaignId, botServed, block, 'python-requests/2.31');
      const humanAd = await serve(campaignId, botClicker, block);
      clock.advance(HUMAN_DELAY);
      expect((await click(botAd, botServed, UA.Android)).body).toEqual(INVALID('its impression was invalid traffic'));
      expect((await click(humanAd, botClicker, 'curl/8.5.0')).body).toEqual(INVALID('a bot or HTTP library agent'));
      expect(await figures(campaignId, block)).toEqual({
        campaign: { impressions: 1, clicks: 0, unbilledClicks: 0, invalidClicks: 2, invalidImpressions: 1, cost: 0, conversions: 0 },
        block: { impressions: 1, clicks: 0, unbilledClicks: 0, invalidClicks: 2, invalidImpressions: 1, earnings: 0 },
      });
      const rows = await clickRows(campaignId);
      expect(rows.map((row) => [row.messengerUserId, row.status, row.invalidReason, row.costMicros, row.verificationStatus])).toEqual([
        [botServed, 'invalid', 'invalidImpression', 0, 'none'],
        [botClicker, 'invalid', 'bot', 0, 'none'],
      ]);
      // not attributable
      await t
        .http()
        .post(CONVERSION)
        .set('x-api-key', advertiser.apiKey)
        .send({ eventType: 'conversion', eventData: { messengerUserId: botClicker } })
        .expect(200);
      expect((await flushedCampaign(t, campaignId)).conversions).toBe(0);
    });

    it('should answer the same series sums as the totals, invalid and unbilled figures included', async () => {
      const block = await createAdBlock(t, publisher.apiKey, 'series');
      const campaignId = await campaign({ bidding: { billingType: 'CPC', costPer: 0.1 } });
      const users = [newUser('s'), newUser('s'), newUser('s')];
      const ads = [await serve(campaignId, users[0], block), await serve(campaignId, users[1], block), await serve(campaignId, users[2], block, '')];
      clock.advance(HUMAN_DELAY);
      expect((await click(ads[0], users[0])).body).toEqual(COUNTED);
      expect((await click(ads[2], users[2])).body).toEqual(INVALID('its impression was invalid traffic'));
      await setStatus(t, advertiser.apiKey, campaignId, 'paused');
      expect((await click(ads[1], users[1])).body).toEqual(UNBILLED);
      const totals = (await figures(campaignId, block)).campaign;
      expect(totals).toEqual({ impressions: 2, clicks: 1, unbilledClicks: 1, invalidClicks: 1, invalidImpressions: 1, cost: 0.1, conversions: 0 });
      for (const [path, query, key] of [
        ['ad/campaign/stats', { campaignId }, advertiser.apiKey],
        ['ad/block/stats', { adBlockId: block }, publisher.apiKey],
      ] as const) {
        const response = await t
          .http()
          .get(`/api/v2/openapi/${path}`)
          .query({ ...query, from: clock.now() - 2 * HOUR, to: clock.now() + HOUR, granularity: 'hour' })
          .set('x-api-key', key)
          .expect(200);
        const sum = (field: string) => (response.body.data.series as Body[]).reduce((total, point) => total + point[field], 0);
        expect(['impressions', 'clicks', 'unbilledClicks', 'invalidClicks', 'invalidImpressions'].map(sum)).toEqual([2, 1, 1, 1, 1]);
      }
    });
  });

  describe('exchange (endpoints 8, 9)', () => {
    const EXCHANGE = '/api/v2/openapi/exchange/campaign';
    const exchangeCampaign = async (key: string) => {
      const response = await t
        .http()
        .post(`${EXCHANGE}/create`)
        .set('x-api-key', key)
        .send({ name: 'Quest', icon: 'https://cdn.example.com/i.png', text: 'Play', destination: { actionType: 'open.miniapp', url: 'https://t.example/q' } })
        .expect(200);
      return response.body.data.exchangeCampaignId as string;
    };
    const ledger = async (id: string) => {
      await t.app.get(ExchangeStatsWriterService).flush();
      const response = await t.http().get(`${EXCHANGE}/detail`).query({ exchangeCampaignId: id }).set('x-api-key', ADMIN_KEY).expect(200);
      return pick(response.body.data, ['impressions', 'clicksSent', 'clicksReceived', 'balance']);
    };

    it("should move no ledger for invalid requests' entries and clicks", async () => {
      const [host, guest] = [await createAccount(t, ['partner']), await createAccount(t, ['partner'])];
      const out = await exchangeCampaign(host.apiKey);
      const promoted = await exchangeCampaign(guest.apiKey);
      const fetchEntry = async (user: string, ua: string) => {
        const response = await t
          .http()
          .get('/api/v2/openapi/matching/exchange')
          .query({ exchangeCampaignId: out, openId: user, type: 'messenger', limit: 9 })
          .set('x-api-key', host.apiKey)
          .set('user-agent', ua)
          .expect(200);
        const entry = (response.body.data.exchangeCampaigns as Body[]).find((e) => e.inExchangeCampaignId === promoted);
        if (!entry) throw new Error('entry not served');
        return entry;
      };
      const clickEntry = (entry: Body, user: string, ua: string) =>
        t
          .http()
          .post('/api/v2/openapi/exchange/event/report')
          .set('x-api-key', host.apiKey)
          .set('user-agent', ua)
          .send({
            eventType: 'click',
            eventData: { messengerUserId: user, inExchangeCampaignId: entry.inExchangeCampaignId, outExchangeCampaignId: entry.outExchangeCampaignId },
          })
          .expect(200);
      const [botServed, botClicker, tooSoon, human] = [newUser('x'), newUser('x'), newUser('x'), newUser('x')];
      const botEntry = await fetchEntry(botServed, 'curl/8.5.0');
      const clickerEntry = await fetchEntry(botClicker, BROWSER_USER_AGENT);
      const soonEntry = await fetchEntry(tooSoon, BROWSER_USER_AGENT);
      const humanEntry = await fetchEntry(human, BROWSER_USER_AGENT);
      clock.advance(100);
      await clickEntry(soonEntry, tooSoon, BROWSER_USER_AGENT);
      clock.advance(HUMAN_DELAY);
      await clickEntry(botEntry, botServed, BROWSER_USER_AGENT);
      await clickEntry(clickerEntry, botClicker, 'python-requests/2.31');
      await clickEntry(humanEntry, human, BROWSER_USER_AGENT);
      await clickEntry(humanEntry, human, BROWSER_USER_AGENT);
      expect(await ledger(out)).toEqual({ impressions: 0, clicksSent: 1, clicksReceived: 0, balance: 1 });
      expect(await ledger(promoted)).toEqual({ impressions: 3, clicksSent: 0, clicksReceived: 1, balance: -1 });
    });
  });
});

function pick(body: Body, fields: string[]): Body {
  return Object.fromEntries(fields.map((field) => [field, body[field]]));
}
