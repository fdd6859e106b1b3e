import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../src/common/clock';
import { flushStats, refreshIndex } from '../support/serving-helpers';
import { createAccount, createAdBlock, openCampaign } from '../support/factories';
import { Body, CAMPAIGN_BASE, clickAd, createServable, DAY, endAllCampaigns, fetchAds, HOUR, MINUTE, newUser } from '../support/serving-fixtures';
import { TEST_PROFILE } from '../support/profile';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

const CUSTOM = '/api/v2/openapi/ad/event/report/custom';
/** 1 USDT per 1000 impressions: an impression costs 0.001 USDT (1,000 micro-USDT). */
const PRICE_MICROS = 1000;
/** 0.2003 USDT a day: no pacing line the test samples falls on a whole impression (see pacing.e2e-spec.ts). */
const DAILY = 0.2003;
const DAILY_MICROS = 200_300;
/** Ads served on each block on the seed day, every one clicked; the good block's users pay 5 times as often. */
const SEED_ADS = 30;
const SEED_PAYMENTS = { good: 15, poor: 3 };
/** On the measured day a served user pays once in this many, per block (the same 5 ×). */
const PAYS_ONE_IN = { good: 2, poor: 10 };
/** The measured day: from 1 h to 12 h, a burst of traffic every half hour, more than the budget can take. */
const STEP = 30 * MINUTE;
const LAST_HOUR = 12;

/** Impressions an even campaign serves by share `share` of its day: while the day's spend is under the full line. */
function impressionsByLine(share: number): number {
  return Math.ceil(Math.floor(DAILY_MICROS * Math.min(1, share + 0.05)) / PRICE_MICROS);
}

type Side = 'good' | 'poor';
interface Delivery {
  campaignId: string;
  served: Record<Side, number>;
  clicks: Record<Side, number>;
  payments: Record<Side, number>;
  /** The diagnosis's optimization check on the poor block right after the last burst. */
  poorBlockCheck?: Body;
}

/**
 * Optimization toward the campaign's event (docs/CONTRACT.md §13, "Where the budget goes"), with a clock the test
 * moves: two ad blocks whose users pay 5 times apart, and the same traffic, budget and pacing for a campaign that
 * optimizes toward `payment` and for a control that optimizes toward `conversion` (which nobody reports: no data).
 * Under pacing pressure the first spends its day on the better block and gets more payments; the control splits
 * its spend as delivery did before optimization. Neither pays more than its bid.
 */
describe(`Optimization toward the campaign's event (${TEST_PROFILE})`, () => {
  const clock = new ManualClock();
  let t: TestApp;
  let advertiser: { accountId: string; apiKey: string };
  let other: { accountId: string; apiKey: string };
  let publisher: { accountId: string; apiKey: string };
  const blocks: Record<Side, string> = { good: '', poor: '' };
  const moveTo = (at: number) => clock.advance(at - clock.now());
  const nextUtcMidnight = () => Math.floor(clock.now() / DAY) * DAY + DAY;

  beforeAll(async () => {
    t = await startTestApp({ REDIS_PREFIX: `adnet-e2e:optimization-${randomBytes(4).toString('hex')}:` }, { clock });
    advertiser = await createAccount(t, ['advertiser']);
    other = await createAccount(t, ['advertiser']);
    publisher = await createAccount(t, ['publisher']);
    blocks.good = await createAdBlock(t, publisher.apiKey, 'Good block');
    blocks.poor = await createAdBlock(t, publisher.apiKey, 'Poor block');
  });
  afterAll(() => t.close());

  const detail = async (campaignId: string, apiKey = advertiser.apiKey): Promise<Body> =>
    (await t.http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId }).set('x-api-key', apiKey).expect(200)).body.data;
  const pay = (user: string) =>
    t
      .http()
      .post(CUSTOM)
      .set('x-api-key', advertiser.apiKey)
      .send({ eventType: 'payment', eventData: { messengerUserId: user } })
      .expect(200);

  /** The delivery diagnosis's optimization check of the campaign on the block (an admin may name any block). */
  const diagnose = async (campaignId: string, adBlockId: string): Promise<Body> =>
    (
      await t.http().get('/api/v2/openapi/ad/delivery/diagnose').query({ campaignId, adBlockId, country: 'US' }).set('x-api-key', ADMIN_KEY).expect(200)
    ).body.data.checks.find((check: Body) => check.check === 'optimization');

  /** Serves one ad on the block to a new user and clicks it; answers the user, or null when no ad was served. */
  async function serveAndClick(side: Side): Promise<string | null> {
    const user = newUser(side);
    const ads = await fetchAds(t, publisher.apiKey, blocks[side], user, { limit: 1 });
    if (ads.length === 0) return null;
    await clickAd(t, publisher.apiKey, ads[0], user).expect(200);
    return user;
  }

  /** Makes the serving index and the per-block estimates read what the stats hold now. */
  async function refresh(): Promise<void> {
    await flushStats(t);
    await refreshIndex(t);
  }

  /**
   * One campaign alone on the network: a seed day (its own history on both blocks), then the measured day's bursts,
   * alternating blocks until both refuse, each served ad clicked and its user paying at the block's rate.
   */
  async function deliver(optimizationEvent: 'payment' | 'conversion'): Promise<Delivery> {
    await endAllCampaigns(t);
    const seedDay = nextUtcMidnight();
    moveTo(seedDay + 23 * HOUR);
    const campaignId = await createServable(t, advertiser.apiKey, {
      ...openCampaign({
        bidding: { billingType: 'CPM', costPer: 1 },
        budget: { amount: DAILY, total: 100, pacing: 'even', startTime: seedDay, endTime: seedDay + 3 * DAY },
      }),
      optimizationEvent,
    });
    for (const side of ['good', 'poor'] as const) {
      for (let i = 0; i < SEED_ADS; i++) {
        const user = await serveAndClick(side);
        if (user === null) throw new Error(`the seed day's ad ${i} on the ${side} block was not served`);
        if (i < SEED_PAYMENTS[side]) await pay(user);
      }
    }
    const day = seedDay + DAY;
    const delivery: Delivery = { campaignId, served: { good: 0, poor: 0 }, clicks: { good: 0, poor: 0 }, payments: { good: 0, poor: 0 } };
    moveTo(day + HOUR);
    await refresh();
    for (let at = day + HOUR; at <= day + LAST_HOUR * HOUR; at += STEP) {
      moveTo(at);
      // both blocks refuse twice in a row: the burst is over
      for (let i = 0, refusedInRow = 0; refusedInRow < 4; i++) {
        const side: Side = i % 2 === 0 ? 'good' : 'poor';
        const user = await serveAndClick(side);
        if (user === null) {
          refusedInRow++;
          continue;
        }
        refusedInRow = 0;
        delivery.served[side]++;
        delivery.clicks[side]++;
        if (delivery.served[side] % PAYS_ONE_IN[side] === 0) {
          await pay(user);
          delivery.payments[side]++;
        }
        if (i > 1000) throw new Error('the campaign was never held back');
      }
    }
    await flushStats(t);
    // the last burst is over: the poor block's line holds the campaign back there, the good block's may not yet
    delivery.poorBlockCheck = await diagnose(campaignId, blocks.poor);
    return delivery;
  }

  let optimized: Delivery;
  let control: Delivery;

  beforeAll(async () => {
    optimized = await deliver('payment');
    control = await deliver('conversion');
  });

  const total = (delivery: Delivery) => delivery.served.good + delivery.served.poor;

  it('should spend the same budget to the same line for both, each impression at its bid and no more', async () => {
    expect(total(optimized)).toBe(impressionsByLine(LAST_HOUR / 24));
    expect(total(control)).toBe(impressionsByLine(LAST_HOUR / 24));
    for (const delivery of [optimized, control]) {
      const shown = await detail(delivery.campaignId);
      expect(shown.impressions).toBe(2 * SEED_ADS + total(delivery));
      expect(shown.cost).toBe(((2 * SEED_ADS + total(delivery)) * PRICE_MICROS) / 1e6);
    }
    // the control's day is today's
    expect((await detail(control.campaignId)).spentToday).toBe((total(control) * PRICE_MICROS) / 1e6);
  });

  it('should spend most of the day on the block whose users pay, and get more payments than the control', () => {
    // the poor block serves only until the campaign reaches its lower line in the first burst
    expect(optimized.served.good / total(optimized)).toBeGreaterThanOrEqual(0.85);
    expect(optimized.served.poor).toBeLessThan(control.served.poor / 3);
    // the control alternates between the blocks as delivery did before optimization
    expect(Math.abs(control.served.good - control.served.poor)).toBeLessThanOrEqual(LAST_HOUR * 2);
    const payments = (delivery: Delivery) => delivery.payments.good + delivery.payments.poor;
    expect(payments(optimized)).toBeGreaterThan(payments(control));
  });

  it('should show in detail which blocks it prefers and where it holds back first, from its own counts only', async () => {
    const shown = (await detail(optimized.campaignId)).optimization;
    expect(shown.event).toBe('payment');
    // the seed day's counts and the measured day's, on each block
    const countsOn = (side: Side) =>
      expect.objectContaining({
        adBlockId: blocks[side],
        impressions: SEED_ADS + optimized.served[side],
        clicks: SEED_ADS + optimized.clicks[side],
        events: SEED_PAYMENTS[side] + optimized.payments[side],
      });
    expect(shown.blocksPreferred).toEqual([countsOn('good')]);
    expect(shown.blocksHeldBack).toEqual([countsOn('poor')]);
    expect(shown.blocksPreferred[0].estimatedEventRate).toBeGreaterThan(shown.blocksHeldBack[0].estimatedEventRate);
    // the control has no conversions: no block is held back, and its counts are its own (not the first campaign's)
    const controlShown = (await detail(control.campaignId)).optimization;
    expect(controlShown.event).toBe('conversion');
    expect(controlShown.blocksHeldBack).toEqual([]);
    const impressionsOf = (side: Side) => controlShown.blocksPreferred.find((block: Body) => block.adBlockId === blocks[side])?.impressions;
    expect([impressionsOf('good'), impressionsOf('poor')]).toEqual([SEED_ADS + control.served.good, SEED_ADS + control.served.poor]);
    expect(controlShown.blocksPreferred.every((block: Body) => block.events === 0)).toBe(true);
    // another advertiser cannot read either
    await t.http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId: optimized.campaignId }).set('x-api-key', other.apiKey).expect(404);
  });

  it('should word the block estimate beside the campaign’s in the delivery diagnosis (an admin names the block)', async () => {
    // right after the last burst the poor block's line held the campaign back there
    expect(optimized.poorBlockCheck).toMatchObject({
      passed: false,
      detail: expect.stringMatching(
        /^optimizes toward payment: .*; held back here first: the line on this block runs [\d.]+ % ahead of the time elapsed \([\d.]+ USDT now\): ahead of it, serving better blocks until the line moves on$/,
      ),
    });
    expect(control.poorBlockCheck).toMatchObject({ passed: true, detail: expect.stringMatching(/; a preferred block$/) });
    // the campaign's window is over: the wording of each block is still its own
    const poor = await diagnose(optimized.campaignId, blocks.poor);
    expect(poor).toMatchObject({
      passed: true,
      detail: expect.stringMatching(
        /^optimizes toward payment: this block's estimate is [\d.]+ per 1000 impressions, the campaign's [\d.]+ per 1000 impressions; held back here first when ahead of its time \(not paced now\)$/,
      ),
    });
    const good = await diagnose(optimized.campaignId, blocks.good);
    expect(good).toMatchObject({ passed: true, detail: expect.stringMatching(/^optimizes toward payment: .*; a preferred block$/) });
    const controlCheck = await diagnose(control.campaignId, blocks.poor);
    expect(controlCheck).toMatchObject({ passed: true, detail: expect.stringMatching(/^optimizes toward conversion: .*; a preferred block$/) });
  });
});
