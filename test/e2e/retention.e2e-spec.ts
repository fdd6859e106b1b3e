import { DataSource } from 'typeorm';
import { ManualClock } from '../../src/common/clock';
import { dayStart, partitionName } from '../../src/database/day-partitions';
import { ExchangeStatsWriterService } from '../../src/exchange/exchange-stats-writer.service';
import { RetentionService } from '../../src/retention/retention.service';
import { VerificationCall } from '../../src/verification/entities/verification-call.entity';
import { newId } from '../../src/common/ids';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { flushStats, IP } from '../support/serving-helpers';
import { Body, clickAd, createServable, DAY, fetchAds, HOUR, MINUTE, newUser } from '../support/serving-fixtures';
import { TEST_PROFILE } from '../support/profile';
import { createAdBlock, openCampaign, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';
const EXCHANGE_BASE = '/api/v2/openapi/exchange/campaign';
const EXCHANGE_FETCH = '/api/v2/openapi/matching/exchange';
const EXCHANGE_CLICK = '/api/v2/openapi/exchange/event/report';
const EXCHANGE_CONVERSION = '/api/v2/openapi/exchange/event/report/conversion';
const COUNTED = { code: 0, message: 'success', data: { status: 'success', msg: 'click counted' } };
const EVENT_TABLES = ['clicks', 'conversions', 'exchange_clicks', 'exchange_conversions', 'verification_calls'];
/** Every table the job keeps by day: the event tables and the report rollup (kept REPORT_RETENTION_DAYS, 400). */
const KEPT_TABLES = [...EVENT_TABLES, 'stats_report_hourly'].sort();
/** Each event table's own time: what retention compares with its cut-off. */
const TIME_OF: Record<string, string> = { verification_calls: 'calledAt' };

/**
 * The event data lifecycle (docs/SCALING.md, step 4) with a clock the test moves over more than 90 days: clicks,
 * conversions and exchange traffic across day partitions (and past the partitions made ahead), then retention:
 * whole days older than EVENT_RETENTION_DAYS removed, nothing newer, every aggregate and counter unchanged, and a
 * second run changing nothing. On MySQL the rows are checked in their day partitions.
 */
describe('Event data lifecycle: day partitions and EVENT_RETENTION_DAYS', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let publisher: Account;
  let advertiser: Account;
  let sender: Account;
  let receiver: Account;
  let block: string;
  let campaign: string;
  let outExchange: string;
  let promoted: string;
  /** The UTC day of the first impression. */
  let day0: number;
  const early = { user: newUser('early'), exchangeUser: newUser('early-x') };
  const late = { user: newUser('late') };
  let statsBefore: Body;

  const http = () => t.http();
  const db = () => t.app.get(DataSource);
  const retention = () => t.app.get(RetentionService);
  const moveTo = (ms: number) => {
    expect(ms).toBeGreaterThanOrEqual(clock.now());
    clock.advance(ms - clock.now());
  };
  const serve = async (user: string): Promise<Body> => {
    const ads = await fetchAds(t, publisher.apiKey, block, user, { limit: 9 });
    const ad = ads.find((candidate) => candidate.campaignId === campaign);
    if (!ad) throw new Error(`campaign ${campaign} not served`);
    return ad;
  };
  const convert = (messengerUserId: string) =>
    http().post(CONVERSION).set('x-api-key', advertiser.apiKey).send({ eventType: 'conversion', eventData: { messengerUserId } }).expect(200);
  const clickRow = async (user: string): Promise<{ id: string; createdAt: number }> => {
    const [row] = await db().query('SELECT id, createdAt FROM clicks WHERE messengerUserId = ?', [user]);
    return { id: row.id, createdAt: Number(row.createdAt) };
  };
  const conversionsOf = async (user: string) =>
    (await db().query('SELECT clickId, createdAt, partitionAt FROM conversions WHERE messengerUserId = ? ORDER BY createdAt, id', [user])).map((row: Body) => ({
      clickId: row.clickId,
      createdAt: Number(row.createdAt),
      partitionAt: Number(row.partitionAt),
    }));
  /** MySQL: the partition holding the row of `table` whose `column` is `value`. */
  const partitionOf = async (table: string, where: string, params: unknown[]): Promise<string> => {
    const names: { name: string }[] = await db().query(
      `SELECT PARTITION_NAME AS name FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND PARTITION_NAME IS NOT NULL`,
      [table],
    );
    const found: string[] = [];
    for (const { name } of names) {
      const [{ n }] = await db().query(`SELECT COUNT(*) AS n FROM \`${table}\` PARTITION (\`${name}\`) WHERE ${where}`, params);
      if (Number(n) > 0) found.push(name);
    }
    expect(found).toHaveLength(1);
    return found[0];
  };
  const exchangeClick = async (user: string) => {
    const entries = await http()
      .get(EXCHANGE_FETCH)
      .query({ exchangeCampaignId: outExchange, openId: user, type: 'messenger', limit: 9 })
      .set({ 'x-api-key': sender.apiKey, 'x-forwarded-for': IP.US })
      .expect(200);
    expect((entries.body.data.exchangeCampaigns as Body[]).map((entry) => entry.inExchangeCampaignId)).toContain(promoted);
    const clicked = await http()
      .post(EXCHANGE_CLICK)
      .set('x-api-key', sender.apiKey)
      .send({ eventType: 'click', eventData: { messengerUserId: user, inExchangeCampaignId: promoted, outExchangeCampaignId: outExchange } });
    expect(clicked.body).toEqual({ status: 'success' });
  };
  const exchangeConvert = (messengerUserId: string) =>
    http().post(EXCHANGE_CONVERSION).set('x-api-key', receiver.apiKey).send({ eventType: 'conversion', eventData: { messengerUserId } }).expect(200);
  const verificationCall = (calledAt: number) =>
    db()
      .getRepository(VerificationCall)
      .insert({
        id: newId(calledAt),
        campaignId: campaign,
        clickId: newId(calledAt),
        attempt: 1,
        calledAt,
        outcome: 'verified',
        httpStatus: 200,
        latencyMs: 5,
        error: null,
      });
  /** Every row of the event tables, by table: what retention may remove. */
  const eventRows = async (): Promise<Record<string, { id: string; time: number }[]>> => {
    const rows: Record<string, { id: string; time: number }[]> = {};
    for (const table of EVENT_TABLES) {
      const time = TIME_OF[table] ?? 'createdAt';
      const found: Body[] = await db().query(`SELECT id, ${time} AS time FROM ${table} ORDER BY id`);
      rows[table] = found.map((row) => ({ id: row.id, time: Number(row.time) }));
    }
    return rows;
  };
  /** Every aggregate and counter the stats endpoints read, straight from their tables, and as the API shows them. */
  const stats = async (): Promise<Body> => {
    await flushStats(t);
    await t.app.get(ExchangeStatsWriterService).flush();
    const table = (sql: string) => db().query(sql);
    const campaignDetail = (await http().get('/api/v2/openapi/ad/campaign/detail').query({ campaignId: campaign }).set('x-api-key', ADMIN_KEY).expect(200)).body
      .data;
    const exchangeDetail = (await http().get(`${EXCHANGE_BASE}/detail`).query({ exchangeCampaignId: promoted }).set('x-api-key', ADMIN_KEY).expect(200)).body
      .data;
    return {
      statsHourly: await table('SELECT * FROM stats_hourly ORDER BY campaignId, adBlockId, hour'),
      exchangeStatsHourly: await table('SELECT * FROM exchange_stats_hourly ORDER BY exchangeCampaignId, hour'),
      campaigns: await table(
        'SELECT id, impressions, clicks, conversions, spentMicros, verifiedClicks, unbilledClicks, invalidClicks, invalidImpressions, views FROM campaigns ORDER BY id',
      ),
      adBlocks: await table('SELECT id, impressions, clicks, earningsMicros, unbilledClicks, invalidClicks, views FROM ad_blocks ORDER BY id'),
      exchangeCampaigns: await table('SELECT id, impressions, impressionsSent, clicksSent, clicksReceived, conversions FROM exchange_campaigns ORDER BY id'),
      campaignDetail: pick(campaignDetail, ['impressions', 'clicks', 'conversions', 'cost', 'ctr', 'cr']),
      exchangeDetail: pick(exchangeDetail, ['clicksReceived', 'conversions', 'cr']),
    };
  };
  /** Runs retention and checks what it removed: exactly the rows older than the cut-off that it may remove. */
  const runRetention = async () => {
    const before = await eventRows();
    const outcomes = await retention().run();
    expect(outcomes.map((outcome) => outcome.table).sort()).toEqual(KEPT_TABLES);
    const after = await eventRows();
    const cutoff = retention().cutoff();
    for (const table of EVENT_TABLES) {
      const kept = new Set(after[table].map((row) => row.id));
      // nothing at or after the cut-off is ever removed, nothing new appears
      expect(before[table].filter((row) => row.time >= cutoff).every((row) => kept.has(row.id))).toBe(true);
      expect(after[table].every((row) => before[table].some((old) => old.id === row.id))).toBe(true);
    }
    return { outcomes, after, cutoff };
  };

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' }, { clock });
    ({ publisher, advertiser, sender, receiver } = await createAccounts(t, {
      publisher: ['publisher', 'Publisher'],
      advertiser: ['advertiser', 'Advertiser'],
      sender: ['partner', 'Sending partner'],
      receiver: ['partner', 'Receiving partner'],
    }));
    block = await createAdBlock(t, publisher.apiKey);
    const createExchange = async (key: string, name: string) =>
      (
        await http()
          .post(`${EXCHANGE_BASE}/create`)
          .set('x-api-key', key)
          .send({ name, icon: 'https://cdn.example.com/i.png', text: name, destination: { actionType: 'open.miniapp', url: 'https://t.example/app' } })
          .expect(200)
      ).body.data.exchangeCampaignId as string;
    outExchange = await createExchange(sender.apiKey, 'Sender app');
    promoted = await createExchange(receiver.apiKey, 'Receiver game');
  });
  afterAll(() => t.close());

  it('should have made the day partitions ahead at start (MySQL), with the default retention of 90 days', async () => {
    expect(retention().tableNames).toEqual(KEPT_TABLES);
    expect(retention().cutoff(Date.UTC(2026, 10, 25, 12))).toBe(Date.UTC(2026, 7, 27));
    if (TEST_PROFILE !== 'mysql') return;
    const today = dayStart(clock.now());
    for (const table of EVENT_TABLES) {
      const [{ bound }] = await db().query(
        `SELECT MAX(CAST(PARTITION_DESCRIPTION AS UNSIGNED)) AS bound FROM information_schema.PARTITIONS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND PARTITION_DESCRIPTION <> 'MAXVALUE'`,
        [table],
      );
      expect({ table, bound: Number(bound) }).toEqual({ table, bound: today + 8 * DAY });
    }
  });

  it('should count a click 90 minutes after its impression across midnight, in the new day partition', async () => {
    // tomorrow 23:00 UTC: whatever the real time, the impression's day ends an hour later
    day0 = dayStart(clock.now()) + DAY;
    moveTo(day0 + 23 * HOUR);
    campaign = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPC', costPer: 0.2 } }, clock.now()));
    const ad = await serve(early.user);
    moveTo(day0 + DAY + 30 * MINUTE);
    expect((await clickAd(t, publisher.apiKey, ad, early.user)).body).toEqual(COUNTED);
    const click = await clickRow(early.user);
    expect(dayStart(click.createdAt)).toBe(day0 + DAY);
    if (TEST_PROFILE === 'mysql') expect(await partitionOf('clicks', 'id = ?', [click.id])).toBe(partitionName(day0 + 2 * DAY));

    moveTo(day0 + DAY + HOUR);
    await exchangeClick(early.exchangeUser);
    await verificationCall(clock.now());
  });

  it("should credit conversions within 7 days of the click, kept in the click's day partition, once however many arrive at once", async () => {
    // the exchange conversion 4 days after its exchange click, once
    moveTo(day0 + 5 * DAY);
    await exchangeConvert(early.exchangeUser);
    await exchangeConvert(early.exchangeUser);
    const credited: Body[] = await db().query('SELECT exchangeClickId, partitionAt FROM exchange_conversions WHERE messengerUserId = ? ORDER BY id', [
      early.exchangeUser,
    ]);
    const [exchangeClickRow] = await db().query('SELECT id, createdAt FROM exchange_clicks WHERE messengerUserId = ?', [early.exchangeUser]);
    expect(credited.map((row) => ({ exchangeClickId: row.exchangeClickId, partitionAt: dayStart(Number(row.partitionAt)) }))).toEqual([
      { exchangeClickId: exchangeClickRow.id, partitionAt: day0 + DAY },
      { exchangeClickId: null, partitionAt: day0 + 5 * DAY },
    ]);

    const click = await clickRow(early.user);
    moveTo(click.createdAt + 7 * DAY - MINUTE);
    await Promise.all([convert(early.user), convert(early.user), convert(early.user)]);
    const rows = await conversionsOf(early.user);
    expect(rows.map((row: Body) => dayStart(row.createdAt))).toEqual([day0 + 8 * DAY, day0 + 8 * DAY, day0 + 8 * DAY]);
    expect(rows.filter((row: Body) => row.clickId !== null)).toEqual([{ clickId: click.id, createdAt: expect.any(Number), partitionAt: click.createdAt }]);
    // the unattributed ones are kept by their own time
    expect(rows.filter((row: Body) => row.clickId === null && row.partitionAt === row.createdAt)).toHaveLength(2);
    if (TEST_PROFILE === 'mysql') {
      expect(await partitionOf('conversions', 'clickId = ?', [click.id])).toBe(partitionName(day0 + 2 * DAY));
    }
  });

  it('should store events past the partitions made ahead (MySQL: in pmax) and move them into their day when the job runs', async () => {
    // 24 days on, without the job having run since the start: beyond every partition made ahead
    moveTo(day0 + 24 * DAY + 10 * HOUR);
    const ad = await serve(late.user);
    moveTo(clock.now() + 23 * HOUR);
    expect((await clickAd(t, publisher.apiKey, ad, late.user)).body).toEqual(COUNTED);
    await convert(late.user);
    await verificationCall(clock.now());
    const click = await clickRow(late.user);
    expect(await conversionsOf(late.user)).toEqual([{ clickId: click.id, createdAt: expect.any(Number), partitionAt: click.createdAt }]);
    if (TEST_PROFILE === 'mysql') expect(await partitionOf('clicks', 'id = ?', [click.id])).toBe('pmax');

    const { outcomes } = await runRetention();
    expect(outcomes.every((outcome) => outcome.droppedPartitions.length === 0 && outcome.deletedRows === 0)).toBe(true);
    if (TEST_PROFILE === 'mysql') {
      // one partition per day the job missed, then the days ahead: from the last made at start (day0 + 6) on
      const added = (dayStart(clock.now()) + 8 * DAY - (day0 + 7 * DAY)) / DAY;
      expect(outcomes.map((outcome) => outcome.addedPartitions.length)).toEqual(KEPT_TABLES.map(() => added));
      expect(await partitionOf('clicks', 'id = ?', [click.id])).toBe(partitionName(dayStart(clock.now()) + DAY));
      expect(await partitionOf('conversions', 'clickId = ?', [click.id])).toBe(partitionName(dayStart(clock.now()) + DAY));
    }
    statsBefore = await stats();
    expect(statsBefore.campaignDetail).toEqual({ impressions: 2, clicks: 2, conversions: 2, cost: 0.4, ctr: 1, cr: 1 });
    expect(statsBefore.exchangeDetail).toEqual({ clicksReceived: 1, conversions: 1, cr: 1 });
  });

  it('should remove the days older than 90 days, and nothing newer; every stat stays exact; a second run changes nothing', async () => {
    const early = await eventRows();
    const earlyClickDay = day0 + DAY;
    // 91 days after the early click's day: the cut-off is the start of the next day
    moveTo(earlyClickDay + 91 * DAY + 12 * HOUR);
    const first = await runRetention();
    expect(first.cutoff).toBe(earlyClickDay + DAY);
    const gone = (table: string) => early[table].filter((row) => !first.after[table].some((kept) => kept.id === row.id)).length;
    // the early click, exchange click and verification call were made that day; the conversions came later and stay
    expect(EVENT_TABLES.map((table) => [table, gone(table)])).toEqual([
      ['clicks', 1],
      ['conversions', 0],
      ['exchange_clicks', 1],
      ['exchange_conversions', 0],
      ['verification_calls', 1],
    ]);
    expect(await stats()).toEqual(statsBefore);

    const again = await retention().run();
    expect(again.map(({ addedPartitions, droppedPartitions, deletedRows }) => ({ addedPartitions, droppedPartitions, deletedRows }))).toEqual(
      KEPT_TABLES.map(() => ({ addedPartitions: [], droppedPartitions: [], deletedRows: 0 })),
    );
    expect(await eventRows()).toEqual(first.after);
    expect(await stats()).toEqual(statsBefore);
  });

  it('should remove conversions once they too are older than the retention (MySQL: up to the attribution window later)', async () => {
    // The early conversions were made on day0 + 8 (ad) and day0 + 5 (exchange). SQLite deletes them once that day is
    // 90 days old; MySQL drops a day partition of conversions once every row in it could be, 7 days after its day.
    moveTo(day0 + 16 * DAY + 90 * DAY + HOUR);
    const { after, cutoff } = await runRetention();
    expect(cutoff).toBe(day0 + 16 * DAY);
    expect(after.conversions.every((row) => row.time >= cutoff)).toBe(true);
    expect(after.exchange_conversions).toEqual([]);
    expect(await conversionsOf(early.user)).toEqual([]);
    const lateClick = await clickRow(late.user);
    expect(await conversionsOf(late.user)).toEqual([{ clickId: lateClick.id, createdAt: expect.any(Number), partitionAt: lateClick.createdAt }]);
    expect(after.clicks.map((row) => row.id)).toEqual([lateClick.id]);
    expect(await stats()).toEqual(statsBefore);

    if (TEST_PROFILE === 'mysql') {
      for (const table of EVENT_TABLES) {
        const bounds: { bound: string }[] = await db().query(
          `SELECT PARTITION_DESCRIPTION AS bound FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY PARTITION_ORDINAL_POSITION`,
          [table],
        );
        const days = bounds
          .map((row) => row.bound)
          .filter((bound) => bound !== 'MAXVALUE')
          .map(Number);
        // no partition left wholly before the cut-off (conversions: before it by the attribution window), days made ahead
        expect(Math.min(...days)).toBeGreaterThan(table.endsWith('conversions') ? cutoff - 7 * DAY : cutoff);
        expect(Math.max(...days)).toBe(dayStart(clock.now()) + 8 * DAY);
        expect(bounds[bounds.length - 1].bound).toBe('MAXVALUE');
      }
    }
    const again = await retention().run();
    expect(again.every((outcome) => outcome.addedPartitions.length + outcome.droppedPartitions.length + outcome.deletedRows === 0)).toBe(true);
  });
});

function pick(body: Body, keys: string[]): Body {
  return Object.fromEntries(keys.map((key) => [key, body[key]]));
}
