import { DataSource } from 'typeorm';
import { ManualClock } from '../../src/common/clock';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CLICK, flushStats, IP, UA } from '../support/serving-helpers';
import { Body, createServable, DAY, expectValidationError, fetchAds, HOUR, MINUTE, newUser } from '../support/serving-fixtures';
import { createAccount, createAdBlock, openCampaign, createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const REPORT = '/api/v2/openapi/report';
const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';
const DIMENSIONS = ['hour', 'day', 'campaign', 'adBlock', 'country', 'platform'];
const micros = (usdt: number) => Math.round(usdt * 1_000_000);

/** Every combination of at most 3 dimensions, in a stable order (42 of them). */
function groupings(): string[][] {
  const out: string[][] = [[]];
  for (let a = 0; a < DIMENSIONS.length; a++) {
    out.push([DIMENSIONS[a]]);
    for (let b = a + 1; b < DIMENSIONS.length; b++) {
      out.push([DIMENSIONS[a], DIMENSIONS[b]]);
      for (let c = b + 1; c < DIMENSIONS.length; c++) out.push([DIMENSIONS[c], DIMENSIONS[a], DIMENSIONS[b]]);
    }
  }
  return out;
}

/** Parses the report CSV (no quoted fields in these figures). */
function parseCsv(text: string): Record<string, string>[] {
  const [header, ...lines] = text.split('\r\n').filter((line) => line.length > 0);
  const columns = header.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [columns[i], value])));
}

describe('Reports (GET /report)', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let advertiser: Account;
  let otherAdvertiser: Account;
  let publisher: Account;
  let otherPublisher: Account;
  let block: string;
  let otherBlock: string;
  let cpm: string;
  let cpc: string;
  let otherCpm: string;
  /** The UTC hour the traffic starts in; the window is [h0, h0 + 2 h). */
  let h0: number;
  let window: { from: number; to: number };

  const http = () => t.http();
  const report = (key: string, query: Record<string, string | number>) => http().get(REPORT).query(query).set('x-api-key', key);
  const okReport = async (key: string, query: Record<string, string | number>): Promise<Body> => {
    const response = await report(key, query);
    if (response.status !== 200) throw new Error(`report ${JSON.stringify(query)}: ${response.status} ${JSON.stringify(response.body)}`);
    expect(response.body.code).toBe(0);
    return response.body.data;
  };
  const serveFrom = (adBlockId: string, key: string, ip: string, ua: string) => fetchAds(t, key, adBlockId, newUser('r'), { ip, ua });
  /** A served ad's click, sent from the user's own IP and browser. */
  const click = (ad: Body, user: string, ip: string, ua: string) =>
    http()
      .post(CLICK)
      .set('x-api-key', publisher.apiKey)
      .set('x-forwarded-for', ip)
      .set('user-agent', ua)
      .send({ eventType: 'click', eventData: { adBlockId: ad.adBlockId, messengerUserId: user, adId: ad.adId, campaignId: ad.campaignId } });

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' }, { clock });
    // 10 minutes into the next UTC hour: the first hour's traffic stays in one hour
    clock.advance(HOUR - (Date.now() % HOUR) + 10 * MINUTE);
    const start = clock.now();
    h0 = start - (start % HOUR);
    window = { from: h0, to: h0 + 2 * HOUR };
    ({ advertiser, otherAdvertiser, publisher, otherPublisher } = await createAccounts(t, {
      advertiser: ['advertiser', 'Advertiser A'],
      otherAdvertiser: ['advertiser', 'Advertiser B'],
      publisher: ['publisher', 'Publisher P'],
      otherPublisher: ['publisher', 'Publisher Q'],
    }));
    block = await createAdBlock(t, publisher.apiKey, 'P main');
    otherBlock = await createAdBlock(t, otherPublisher.apiKey, 'Q main');
    const now = clock.now();
    cpm = await createServable(t, advertiser.apiKey, openCampaign({ name: 'A cpm', bidding: { billingType: 'CPM', costPer: 2.5 } }, now));
    cpc = await createServable(t, advertiser.apiKey, openCampaign({ name: 'A cpc', bidding: { billingType: 'CPC', costPer: 0.5 } }, now));
    otherCpm = await createServable(t, otherAdvertiser.apiKey, openCampaign({ name: 'B cpm', bidding: { billingType: 'CPM', costPer: 1 } }, now));

    // hour 0: three users from the US on iPhones and one from Germany on Android on P's block, one US iPhone on Q's
    const clicker = newUser('clicker');
    const first = await fetchAds(t, publisher.apiKey, block, clicker, { ip: IP.US, ua: UA.iOS });
    await serveFrom(block, publisher.apiKey, IP.US, UA.iOS);
    await serveFrom(block, publisher.apiKey, IP.US, UA.iOS);
    await serveFrom(block, publisher.apiKey, IP.DE, UA.Android);
    await serveFrom(otherBlock, otherPublisher.apiKey, IP.US, UA.iOS);
    for (const ads of [first]) expect(ads.map((ad) => ad.campaignId).sort()).toEqual([cpm, cpc, otherCpm].sort());
    clock.advance(5 * 1000);
    const cpcAd = first.find((ad) => ad.campaignId === cpc)!;
    expect((await click(cpcAd, clicker, IP.US, UA.iOS)).body.data.msg).toBe('click counted');
    // hour 1: a German desktop, and a bot (invalid traffic: served, never billed)
    clock.advance(HOUR);
    await serveFrom(block, publisher.apiKey, IP.DE, UA.Desktop);
    await serveFrom(block, publisher.apiKey, IP.US, 'curl/8.5.0');
    const conversion = await http()
      .post(CONVERSION)
      .set('x-api-key', advertiser.apiKey)
      .send({ eventType: 'conversion', eventData: { messengerUserId: clicker } });
    expect(conversion.body).toEqual({ status: 'success', msg: expect.stringMatching(/^attributed/) });
    await flushStats(t);
  });
  afterAll(() => t.close());

  describe('figures', () => {
    it("should answer an advertiser's figures by country and platform exactly: its campaigns, its cost", async () => {
      const data = await okReport(advertiser.apiKey, { ...window, groupBy: 'country,platform' });
      const zero = { clicks: 0, ctr: 0, conversions: 0, completions: 0, onboard: 0, register: 0, play: 0, payment: 0, withdraw: 0 };
      const none = { unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 0, views: 0 };
      expect(data).toEqual({
        timeZone: 'UTC',
        from: h0,
        to: h0 + 2 * HOUR,
        groupBy: ['country', 'platform'],
        rows: [
          // the conversion comes from the advertiser's server: no country, no platform (unknown sorts first: stored empty)
          { country: 'unknown', platform: 'unknown', impressions: 0, ...zero, conversions: 1, cost: 0, ...none },
          // DE: one Android and one desktop view of each of A's two campaigns; only the CPM one costs (2.5 / 1000)
          { country: 'DE', platform: 'Android', impressions: 2, ...zero, cost: 0.0025, ...none },
          { country: 'DE', platform: 'Desktop', impressions: 2, ...zero, cost: 0.0025, ...none },
          // the bot's impressions: US, no platform, counted apart and free
          { country: 'US', platform: 'unknown', impressions: 0, ...zero, cost: 0, ...none, invalidImpressions: 2 },
          // 4 US iPhones (one on Q's block) saw both campaigns; one clicked the CPC one (0.5)
          { country: 'US', platform: 'iOS', impressions: 8, ...zero, clicks: 1, ctr: 1 / 8, cost: 0.51, ...none },
        ],
        totals: { impressions: 12, ...zero, clicks: 1, ctr: 1 / 12, conversions: 1, cost: 0.515, ...none, invalidImpressions: 2 },
      });
    });

    it("should answer a publisher's figures by ad block and country: its blocks, its earnings (70 %)", async () => {
      const data = await okReport(publisher.apiKey, { ...window, groupBy: 'adBlock,country' });
      const none = { unbilledClicks: 0, invalidClicks: 0, views: 0, conversions: 0, completions: 0 };
      expect(data.rows).toEqual([
        // the conversion, on the block whose click it is credited to; its country is not known (the advertiser reports it)
        { adBlockId: block, country: 'unknown', impressions: 0, clicks: 0, ctr: 0, earnings: 0, invalidImpressions: 0, ...none, conversions: 1 },
        // DE: 2 fetches x 3 campaigns; earnings 0.7 x (2 x 2.5 + 2 x 1) / 1000
        { adBlockId: block, country: 'DE', impressions: 6, clicks: 0, ctr: 0, earnings: 0.0049, invalidImpressions: 0, ...none },
        // US: 3 iPhone fetches x 3 campaigns, the click (0.7 x 0.5), and the bot's 3 invalid impressions
        { adBlockId: block, country: 'US', impressions: 9, clicks: 1, ctr: 1 / 9, earnings: 0.35735, invalidImpressions: 3, ...none },
      ]);
      expect(data.totals).toEqual({ impressions: 15, clicks: 1, ctr: 1 / 15, earnings: 0.36225, invalidImpressions: 3, ...none, conversions: 1 });
      // the block's own series counts it too: the hourly row of the block whose click it is credited to
      const series = (
        await t
          .http()
          .get('/api/v2/openapi/ad/block/stats')
          .query({ adBlockId: block, ...window, granularity: 'hour' })
          .set('x-api-key', publisher.apiKey)
          .expect(200)
      ).body.data.series as Body[];
      expect(series.reduce((sum, point) => sum + point.conversions, 0)).toBe(1);
    });

    it('should give an admin every campaign and block, with cost and earnings', async () => {
      const data = await okReport(ADMIN_KEY, { ...window, groupBy: 'campaign,adBlock' });
      const pairs = data.rows.map((row: Body) => [row.campaignId, row.adBlockId, row.impressions]);
      expect(pairs).toEqual(
        [
          [cpm, block, 5],
          [cpm, otherBlock, 1],
          [cpc, block, 5],
          [cpc, otherBlock, 1],
          [otherCpm, block, 5],
          [otherCpm, otherBlock, 1],
        ].sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1]))),
      );
      expect(data.totals.cost).toBe(0.521);
      // 0.35 + 0.7 x (6 x 0.0025 + 6 x 0.001)
      expect(data.totals.earnings).toBe(0.3647);
    });

    it('should bucket hours and days in the time zone asked for, whole-hour and half-hour offsets alike', async () => {
      const utc = await okReport(advertiser.apiKey, { ...window, groupBy: 'hour' });
      expect(utc.rows.map((row: Body) => [row.hour, row.impressions])).toEqual([
        [new Date(h0).toISOString().slice(0, 16), 10],
        [new Date(h0 + HOUR).toISOString().slice(0, 16), 2],
      ]);
      const kolkata = await okReport(advertiser.apiKey, { ...window, groupBy: 'hour', timeZone: 'Asia/Kolkata' });
      expect(kolkata.timeZone).toBe('Asia/Kolkata');
      expect(kolkata.rows.map((row: Body) => [row.hour, row.impressions])).toEqual([
        [new Date(h0 + 5.5 * HOUR).toISOString().slice(0, 16), 10],
        [new Date(h0 + 6.5 * HOUR).toISOString().slice(0, 16), 2],
      ]);
      const tokyo = await okReport(advertiser.apiKey, { ...window, groupBy: 'day', timeZone: 'Asia/Tokyo' });
      const tokyoDay = (at: number) => new Date(at + 9 * HOUR).toISOString().slice(0, 10);
      const expected = new Map<string, number>();
      expected.set(tokyoDay(h0), 10);
      expected.set(tokyoDay(h0 + HOUR), (expected.get(tokyoDay(h0 + HOUR)) ?? 0) + 2);
      expect(tokyo.rows.map((row: Body) => [row.day, row.impressions])).toEqual([...expected]);
      expect(tokyo.totals).toEqual(utc.totals);
    });

    it('should make the totals equal the campaign and block series for every groupBy combination and several windows', async () => {
      const series = async (path: string, query: Record<string, string | number>, key: string) =>
        (
          await http()
            .get(path)
            .query({ ...query, granularity: 'hour' })
            .set('x-api-key', key)
            .expect(200)
        ).body.data.series as Body[];
      const sum = (points: Body[], field: string) =>
        points.reduce((total, point) => total + (field === 'conversions' ? (point.events?.conversion ?? point.conversions) : point[field]), 0);
      const windows = [window, { from: h0, to: h0 + HOUR }, { from: h0 + HOUR, to: h0 + 3 * HOUR }, { from: h0 - DAY, to: h0 + 2 * DAY }];
      for (const w of windows) {
        const campaignPoints = [
          ...(await series('/api/v2/openapi/ad/campaign/stats', { campaignId: cpm, ...w }, advertiser.apiKey)),
          ...(await series('/api/v2/openapi/ad/campaign/stats', { campaignId: cpc, ...w }, advertiser.apiKey)),
        ];
        const blockPoints = await series('/api/v2/openapi/ad/block/stats', { adBlockId: block, ...w }, publisher.apiKey);
        const fields = ['impressions', 'clicks', 'conversions', 'unbilledClicks', 'invalidClicks', 'invalidImpressions', 'views'];
        const advertiserExpected = Object.fromEntries(fields.map((field) => [field, sum(campaignPoints, field)]));
        const publisherExpected = Object.fromEntries(fields.map((field) => [field, sum(blockPoints, field)]));
        const cost = campaignPoints.reduce((total, point) => total + micros(point.cost), 0);
        const earnings = blockPoints.reduce((total, point) => total + micros(point.earnings), 0);
        for (const groupBy of groupings()) {
          const query = { ...w, groupBy: groupBy.join(',') };
          const mine = await okReport(advertiser.apiKey, query);
          expect([groupBy, micros(mine.totals.cost), ...fields.map((field) => mine.totals[field])]).toEqual([
            groupBy,
            cost,
            ...fields.map((field) => advertiserExpected[field]),
          ]);
          const theirs = await okReport(publisher.apiKey, query);
          expect([groupBy, micros(theirs.totals.earnings), ...fields.map((field) => theirs.totals[field])]).toEqual([
            groupBy,
            earnings,
            ...fields.map((field) => publisherExpected[field]),
          ]);
          // and the rows add up to the totals
          expect(mine.rows.reduce((total: number, row: Body) => total + row.impressions, 0)).toBe(mine.totals.impressions);
          expect(mine.rows.reduce((total: number, row: Body) => total + micros(row.cost), 0)).toBe(micros(mine.totals.cost));
        }
      }
    });
  });

  describe('CSV', () => {
    it('should stream the same rows as JSON as a text/csv attachment with a header row', async () => {
      for (const groupBy of ['day,campaign,country', 'hour,platform', '']) {
        const json = await okReport(advertiser.apiKey, { ...window, groupBy });
        const response = await report(advertiser.apiKey, { ...window, groupBy, format: 'csv' })
          .buffer(true)
          .parse((res, done) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => done(null, text));
          });
        expect(response.status).toBe(200);
        expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
        expect(response.headers['content-disposition']).toMatch(/^attachment; filename="report-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/);
        const rows = parseCsv(response.body as string);
        const header = (response.body as string).split('\r\n')[0].split(',');
        const dims = groupBy === '' ? [] : groupBy.split(',').map((d) => ({ campaign: 'campaignId', adBlock: 'adBlockId' })[d] ?? d);
        expect(header).toEqual([
          ...dims,
          'impressions',
          'clicks',
          'ctr',
          'conversions',
          'completions',
          'onboard',
          'register',
          'play',
          'payment',
          'withdraw',
          'cost',
          'unbilledClicks',
          'invalidClicks',
          'invalidImpressions',
          'views',
        ]);
        expect(rows).toEqual(json.rows.map((row: Body) => Object.fromEntries(header.map((column) => [column, String(row[column])]))));
      }
    });

    it("should write a publisher's CSV with earnings, not cost", async () => {
      const response = await report(publisher.apiKey, { ...window, groupBy: 'country', format: 'csv' });
      expect(response.status).toBe(200);
      const text = response.text;
      expect(text.split('\r\n')[0]).toBe(
        'country,impressions,clicks,ctr,conversions,completions,earnings,unbilledClicks,invalidClicks,invalidImpressions,views',
      );
      expect(parseCsv(text).map((row) => [row.country, row.impressions, row.earnings, row.conversions])).toEqual([
        ['unknown', '0', '0', '1'],
        ['DE', '6', '0.0049', '0'],
        ['US', '9', '0.35735', '0'],
      ]);
    });
  });

  describe('a year of hourly rows', () => {
    it('should stream a year of hourly rows by country as CSV (past every page), and refuse it as JSON naming format', async () => {
      // a campaign of its own, with a year of rollup rows written straight to the table: 2 countries x 8,760 hours
      const yearly = await createServable(t, otherAdvertiser.apiKey, openCampaign({ name: 'A year' }, clock.now()));
      const start = h0 - (h0 % DAY) - 400 * DAY;
      const hours = 365 * 24;
      const db = t.app.get(DataSource);
      const rows: (string | number)[][] = [];
      for (let i = 0; i < hours; i++) for (const country of ['DE', 'US']) rows.push([yearly, block, start + i * HOUR, country, 'iOS', 1, 1000]);
      for (let i = 0; i < rows.length; i += 500) {
        const chunk = rows.slice(i, i + 500);
        await db.query(
          `INSERT INTO stats_report_hourly (campaignId, adBlockId, hour, country, platform, impressions, spendMicros) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          chunk.flat(),
        );
      }
      const query = { from: start, to: start + hours * HOUR, groupBy: 'hour,country', campaignId: yearly };
      expectValidationError(await report(otherAdvertiser.apiKey, query), 'format');
      const rssBefore = process.memoryUsage().rss;
      const response = await report(otherAdvertiser.apiKey, { ...query, format: 'csv' });
      expect(response.status).toBe(200);
      const lines = response.text.split('\r\n').filter((line) => line.length > 0);
      expect(lines).toHaveLength(1 + 2 * hours);
      expect(lines[1]).toBe(`${new Date(start).toISOString().slice(0, 16)},DE,1,0,0,0,0,0,0,0,0,0,0.001,0,0,0,0`);
      expect(lines[lines.length - 1].startsWith(`${new Date(start + (hours - 1) * HOUR).toISOString().slice(0, 16)},US,1,`)).toBe(true);
      // in order, every hour twice
      const keys = lines.slice(1).map((line) => line.split(',').slice(0, 2).join(','));
      expect([...keys].sort()).toEqual(keys);
      expect(new Set(keys).size).toBe(2 * hours);
      // the same year by day as JSON: 365 rows whose totals are the year's
      const byDay = await okReport(otherAdvertiser.apiKey, { ...query, groupBy: 'day' });
      expect(byDay.rows).toHaveLength(365);
      expect([byDay.totals.impressions, byDay.totals.cost]).toEqual([2 * hours, 0.001 * 2 * hours]);
      // not asserted (the test process holds the whole answer too): the growth of this process's RSS, for the notes
      process.stdout.write(`report CSV of ${2 * hours} rows: RSS ${Math.round((process.memoryUsage().rss - rssBefore) / 1e6)} MB more\n`);
    });
  });

  describe('access and bad input', () => {
    it("should never show an advertiser another's campaign, nor a publisher another's block", async () => {
      const mine = await okReport(advertiser.apiKey, { ...window, groupBy: 'campaign' });
      expect(mine.rows.map((row: Body) => row.campaignId).sort()).toEqual([cpm, cpc].sort());
      const theirs = await okReport(otherAdvertiser.apiKey, { ...window, groupBy: 'campaign' });
      expect(theirs.rows.map((row: Body) => [row.campaignId, row.impressions, row.cost])).toEqual([[otherCpm, 6, 0.006]]);
      const blocks = await okReport(publisher.apiKey, { ...window, groupBy: 'adBlock' });
      expect(blocks.rows.map((row: Body) => row.adBlockId)).toEqual([block]);
      const other = await okReport(otherPublisher.apiKey, { ...window, groupBy: 'adBlock' });
      expect(other.rows.map((row: Body) => [row.adBlockId, row.impressions])).toEqual([[otherBlock, 3]]);
      // a publisher narrowing to a campaign still sees only its own blocks' rows
      const narrowed = await okReport(otherPublisher.apiKey, { ...window, groupBy: 'adBlock', campaignId: cpm });
      expect(narrowed.rows.map((row: Body) => [row.adBlockId, row.impressions])).toEqual([[otherBlock, 1]]);
      // an advertiser narrowing to a block sees only its campaigns there
      const onBlock = await okReport(advertiser.apiKey, { ...window, groupBy: 'campaign', adBlockId: otherBlock });
      expect(onBlock.rows.map((row: Body) => [row.campaignId, row.impressions]).sort()).toEqual(
        [
          [cpm, 1],
          [cpc, 1],
        ].sort(),
      );
    });

    it("should answer another's campaignId or adBlockId like an unknown one (404 naming the field)", async () => {
      const campaign = await report(advertiser.apiKey, { ...window, campaignId: otherCpm });
      expect([campaign.status, campaign.body]).toEqual([
        404,
        { code: 404, message: 'campaignId: campaign not found', data: { errors: [{ field: 'campaignId', message: 'campaign not found' }] } },
      ]);
      const blockResponse = await report(publisher.apiKey, { ...window, adBlockId: otherBlock });
      expect([blockResponse.status, blockResponse.body.data.errors[0].field]).toEqual([404, 'adBlockId']);
    });

    it('should refuse a partner key (403), a publishable serve key (403) and no key (401)', async () => {
      const partner = await createAccount(t, ['partner'], 'Partner');
      expect((await report(partner.apiKey, window)).status).toBe(403);
      const serveKey = await http().post('/api/v2/openapi/account/keys').set('x-api-key', publisher.apiKey).send({ scope: 'serve' }).expect(200);
      const served = await report(serveKey.body.data.apiKey, window);
      expect([served.status, served.body.code]).toEqual([403, 403]);
      expect((await http().get(REPORT).query(window)).status).toBe(401);
    });

    it.each([
      ['an unknown dimension', { groupBy: 'week' }, 'groupBy'],
      ['4 dimensions', { groupBy: 'hour,campaign,country,platform' }, 'groupBy'],
      ['a repeated dimension', { groupBy: 'country,country' }, 'groupBy'],
      ['from after to', { from: h0Later(), to: 1_000 }, 'from'],
      ['from equal to to', { from: 5_000, to: 5_000 }, 'from'],
      ['a window over 400 days', { from: 0, to: 401 * DAY }, 'to'],
      ['from not a number', { from: 'yesterday' }, 'from'],
      ['an unknown time zone', { timeZone: 'Mars/Olympus' }, 'timeZone'],
      ['an unknown format', { format: 'xml' }, 'format'],
      ['a role the account lacks', { as: 'publisher' }, 'as'],
    ])('should answer 400 naming the field for %s', async (_case, query, field) => {
      expectValidationError(await report(advertiser.apiKey, query as Record<string, string | number>), field);
    });
  });
});

function h0Later(): number {
  return 10_000_000;
}
