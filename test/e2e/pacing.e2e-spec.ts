import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../src/common/clock';
import { flushStats, refreshIndex } from '../support/serving-helpers';
import { createAccount, createAdBlock, openCampaign } from '../support/factories';
import { Body, CAMPAIGN_BASE, createServable, DAY, endAllCampaigns, fetchAds, HOUR, MINUTE, newUser } from '../support/serving-fixtures';
import { TEST_PROFILE } from '../support/profile';
import { startTestApp, TestApp } from '../support/test-app';

/** 1 USDT per 1000 impressions: an impression costs 0.001 USDT (1,000 micro-USDT). */
const PRICE_MICROS = 1000;
/**
 * 0.2003 USDT a day: 200.3 impressions, so that no pacing line the tests sample falls on a whole impression (the
 * clock runs on with real time between a move and the requests).
 */
const DAILY = 0.2003;
const DAILY_MICROS = 200_300;
/** Impressions the daily budget pays for: the last one may pass it by less than its price. */
const DAILY_IMPRESSIONS = Math.ceil(DAILY_MICROS / PRICE_MICROS);

/** Impressions an even campaign serves by share `share` of its period: while the day's spend is under the line. */
function impressionsByLine(share: number, budgetMicros = DAILY_MICROS): number {
  const line = Math.floor(budgetMicros * Math.min(1, share + 0.05));
  return Math.ceil(line / PRICE_MICROS);
}

/**
 * Delivery pacing and the advertiser's day (docs/CONTRACT.md §16), with a clock the test moves: an `even` campaign
 * under more demand than its budget never passes its line at any moment of the day and spends its budget by the end of
 * it; `asap` spends at once; budgets reset at the account's local midnight, DST days included. On the MySQL + Redis
 * profile two API processes on one Redis hold one line together.
 */
describe(`Delivery pacing (${TEST_PROFILE})`, () => {
  const clock = new ManualClock();
  const prefix = `adnet-e2e:pacing-${randomBytes(4).toString('hex')}:`;
  let t: TestApp;
  let second: TestApp | null = null;
  let advertiser: { accountId: string; apiKey: string };
  let publisher: { accountId: string; apiKey: string };
  let adBlockId: string;

  /** Moves the service clock to `at` (ms). */
  const moveTo = (at: number) => clock.advance(at - clock.now());
  /** The next UTC midnight after the service clock's now. */
  const nextUtcMidnight = () => Math.floor(clock.now() / DAY) * DAY + DAY;

  beforeAll(async () => {
    t = await startTestApp({ REDIS_PREFIX: prefix }, { clock });
    if (TEST_PROFILE === 'mysql') second = await startTestApp({ REDIS_PREFIX: prefix }, { clock, dropSchema: false });
    advertiser = await createAccount(t, ['advertiser']);
    publisher = await createAccount(t, ['publisher']);
    adBlockId = await createAdBlock(t, publisher.apiKey);
  });
  afterAll(async () => {
    await second?.close();
    await t.close();
  });
  beforeEach(() => endAllCampaigns(t));

  const detail = async (campaignId: string, apiKey = advertiser.apiKey): Promise<Body> =>
    (await t.http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId }).set('x-api-key', apiKey).expect(200)).body.data;

  /** Sends ad requests (a new user each) until `quiet` in a row are answered without an ad; answers the ads served. */
  async function serveUntilHeld(apps: TestApp[] = [t], quiet = 3): Promise<number> {
    // a new day: campaigns the serving state found out of budget come back with the next index refresh
    for (const app of apps) await refreshIndex(app);
    let served = 0;
    let empty = 0;
    for (let i = 0; empty < quiet; i++) {
      const ads = await fetchAds(apps[i % apps.length], publisher.apiKey, adBlockId, newUser('pace'), { limit: 1 });
      served += ads.length;
      empty = ads.length === 0 ? empty + 1 : 0;
      if (i > 2000) throw new Error('the campaign was never held back');
    }
    return served;
  }

  /** A campaign of the advertiser, live from long before `dayStart` for 30 days; its pacing as given (even by default). */
  const pacedCampaign = (dayStart: number, budget: Record<string, unknown> = {}, apiKey = advertiser.apiKey) =>
    createServable(
      t,
      apiKey,
      openCampaign({ bidding: { billingType: 'CPM', costPer: 1 }, budget: { amount: DAILY, total: 100, pacing: undefined, ...budget } }, dayStart),
    );

  it('should keep an even campaign under its line at 1 h, 6 h, 12 h and 23 h of the day, spend the day by its end, and say so in detail', async () => {
    const day = nextUtcMidnight();
    moveTo(day + HOUR);
    const campaignId = await pacedCampaign(day);
    expect((await detail(campaignId)).budget.pacing).toBe('even');

    let total = 0;
    for (const hours of [1, 6, 12, 23]) {
      moveTo(day + hours * HOUR);
      total += await serveUntilHeld();
      // exactly the impressions the line lets through: never a unit more than the line plus one
      expect(total).toBe(impressionsByLine(hours / 24));
      expect(total * PRICE_MICROS).toBeLessThanOrEqual(Math.floor(DAILY_MICROS * Math.min(1, hours / 24 + 0.05)) + PRICE_MICROS);
      await flushStats(t);
      const shown = await detail(campaignId);
      expect(shown.impressions).toBe(total);
      expect(shown.spentToday).toBe((total * PRICE_MICROS) / 1e6);
      expect(shown.budgetResetsAt).toBe(day + DAY);
      if (hours < 23) {
        expect(shown.pacingStatus).toBe('ahead');
        // the delivery diagnosis names the line it is held back by
        const diagnosis = (await t.http().get('/api/v2/openapi/ad/delivery/diagnose').query({ campaignId }).set('x-api-key', advertiser.apiKey).expect(200))
          .body.data;
        const pacing = diagnosis.checks.find((entry: Body) => entry.check === 'pacing');
        expect(pacing).toMatchObject({
          passed: false,
          detail: expect.stringMatching(/^even pacing: .* ahead of its line, held back until the line moves on$/),
        });
      }
    }
    // by 23 h the line passed the daily budget: all of it is spent (≥ 95 % asked), and the budget stops it
    expect(total).toBe(DAILY_IMPRESSIONS);
    expect((await detail(campaignId)).deliveryStatus).toBe('dailyBudgetSpent');
    // the next day starts from 5 % of the budget again
    moveTo(day + DAY + 30 * MINUTE);
    expect(await serveUntilHeld()).toBe(impressionsByLine(0.5 / 24));
  });

  it('should let an asap campaign spend its daily budget at once', async () => {
    const day = nextUtcMidnight();
    moveTo(day + HOUR);
    const campaignId = await pacedCampaign(day, { pacing: 'asap' });
    expect(await serveUntilHeld()).toBe(DAILY_IMPRESSIONS);
    await flushStats(t);
    const shown = await detail(campaignId);
    expect(shown).toMatchObject({ budget: expect.objectContaining({ pacing: 'asap' }), pacingStatus: 'notPaced', deliveryStatus: 'dailyBudgetSpent' });
  });

  it('should never hold back a campaign whose traffic is below its line: it serves every request', async () => {
    const day = nextUtcMidnight();
    const campaignId = await pacedCampaign(day);
    let served = 0;
    let asked = 0;
    for (const hours of [2, 8, 14, 20]) {
      moveTo(day + hours * HOUR);
      for (let i = 0; i < 10; i++) served += (await fetchAds(t, publisher.apiKey, adBlockId, newUser('low'), { limit: 1 })).length;
      asked += 10;
      expect(served).toBe(asked); // every request served
    }
    await flushStats(t);
    expect((await detail(campaignId)).pacingStatus).toBe('behind');
  });

  it('should pace a campaign whose window is 10 minutes over those 10 minutes', async () => {
    const start = nextUtcMidnight() + 3 * HOUR;
    moveTo(start - MINUTE);
    const campaignId = await createServable(
      t,
      advertiser.apiKey,
      openCampaign({
        bidding: { billingType: 'CPM', costPer: 1 },
        budget: { amount: DAILY, total: 100, pacing: undefined, startTime: start, endTime: start + 10 * MINUTE },
      }),
    );
    let total = 0;
    for (const minutes of [1, 5, 9.5]) {
      moveTo(start + minutes * MINUTE);
      const from = clock.now();
      total += await serveUntilHeld();
      // a second of this period is 1/600 of it: the line moves while the requests are sent
      expect(total).toBeGreaterThanOrEqual(impressionsByLine((from - start) / (10 * MINUTE)));
      expect(total).toBeLessThanOrEqual(impressionsByLine((clock.now() - start) / (10 * MINUTE)));
    }
    expect(total).toBe(DAILY_IMPRESSIONS);
    expect((await detail(campaignId)).budget).toMatchObject({ startTime: start, endTime: start + 10 * MINUTE, pacing: 'even' });
  });

  it('should reset the daily budget at the advertiser’s local midnight: Tokyo', async () => {
    const tokyo = await createAccount(t, ['advertiser']);
    await t.http().post('/api/v2/openapi/account/update').set('x-api-key', tokyo.apiKey).send({ timeZone: 'Asia/Tokyo' }).expect(200);
    // the zone applies from Tokyo's next midnight (15:00 UTC): go past it
    moveTo(nextUtcMidnight() + 16 * HOUR);
    const tokyoMidnight = nextUtcMidnight() + 15 * HOUR; // 15:00 UTC of the coming UTC day
    moveTo(tokyoMidnight - HOUR);
    const campaignId = await pacedCampaign(tokyoMidnight - DAY, { pacing: 'asap' }, tokyo.apiKey);
    expect(await serveUntilHeld()).toBe(DAILY_IMPRESSIONS);
    await flushStats(t);
    expect(await detail(campaignId, tokyo.apiKey)).toMatchObject({ budgetResetsAt: tokyoMidnight, deliveryStatus: 'dailyBudgetSpent' });
    // one minute before Tokyo's midnight (still the same UTC day as after it): nothing
    moveTo(tokyoMidnight - MINUTE);
    expect(await serveUntilHeld()).toBe(0);
    // Tokyo's new day: the budget again, though the UTC day is the same
    moveTo(tokyoMidnight + MINUTE);
    expect(await serveUntilHeld()).toBe(DAILY_IMPRESSIONS);
    await flushStats(t);
    expect(await detail(campaignId, tokyo.apiKey)).toMatchObject({
      spentToday: (DAILY_IMPRESSIONS * PRICE_MICROS) / 1e6,
      cost: (2 * DAILY_IMPRESSIONS * PRICE_MICROS) / 1e6,
      budgetResetsAt: tokyoMidnight + DAY,
    });
    // the day series' buckets are Tokyo's days: each begins at 15:00 UTC and holds that day's spend
    const series = (
      await t
        .http()
        .get(`${CAMPAIGN_BASE}/stats`)
        .query({ campaignId, from: tokyoMidnight - DAY, to: tokyoMidnight + HOUR, granularity: 'day' })
        .set('x-api-key', tokyo.apiKey)
        .expect(200)
    ).body.data.series as Body[];
    const spend = (DAILY_IMPRESSIONS * PRICE_MICROS) / 1e6;
    expect(series.map((point) => [point.time, point.impressions, point.cost])).toEqual([
      [tokyoMidnight - DAY, DAILY_IMPRESSIONS, spend],
      [tokyoMidnight, DAILY_IMPRESSIONS, spend],
    ]);
  });

  it('should make New York’s day 23 hours long on the day clocks go forward', async () => {
    const newYork = await createAccount(t, ['advertiser']);
    await t.http().post('/api/v2/openapi/account/update').set('x-api-key', newYork.apiKey).send({ timeZone: 'America/New_York' }).expect(200);
    // 2027-03-14 begins at 05:00 UTC (EST) and ends at 04:00 UTC the next day (EDT): 23 hours
    const dayStart = Date.UTC(2027, 2, 14, 5);
    const dayEnd = Date.UTC(2027, 2, 15, 4);
    moveTo(dayStart + 2 * HOUR);
    const campaignId = await pacedCampaign(dayStart, { pacing: 'asap' }, newYork.apiKey);
    expect(await serveUntilHeld()).toBe(DAILY_IMPRESSIONS);
    await flushStats(t);
    expect(await detail(campaignId, newYork.apiKey)).toMatchObject({ budgetResetsAt: dayEnd, spentToday: (DAILY_IMPRESSIONS * PRICE_MICROS) / 1e6 });
    // 23.5 hours after the day began (24 h would not have ended it yet): a new day
    moveTo(dayEnd + 30 * MINUTE);
    expect(await serveUntilHeld()).toBe(DAILY_IMPRESSIONS);
    await flushStats(t);
    expect(await detail(campaignId, newYork.apiKey)).toMatchObject({
      budgetResetsAt: dayEnd + DAY,
      spentToday: (DAILY_IMPRESSIONS * PRICE_MICROS) / 1e6,
      cost: (2 * DAILY_IMPRESSIONS * PRICE_MICROS) / 1e6,
    });
  });

  (TEST_PROFILE === 'mysql' ? it : it.skip)('should hold one line across two API processes on one Redis', async () => {
    const day = nextUtcMidnight();
    moveTo(day + 6 * HOUR);
    const campaignId = await pacedCampaign(day);
    // both processes take requests in turn
    const served = await serveUntilHeld([t, second!], 6);
    expect(served).toBe(impressionsByLine(6 / 24));
    await flushStats(t);
    await flushStats(second!);
    expect((await detail(campaignId)).impressions).toBe(served);
    expect((await detail(campaignId)).pacingStatus).toBe('ahead');
  });
});
