import mysql from 'mysql2/promise';
import { ManualClock } from '../../src/common/clock';
import { TEST_DATABASE_URL, TEST_PROFILE, TEST_REPLICATION } from '../support/profile';
import { blockDetail, Body, CAMPAIGN_BASE, BLOCK_BASE, createServable, endAllCampaigns, fetchAds, HOUR, MINUTE, newUser } from '../support/serving-fixtures';
import { CLICK, flushStats, IP, UA } from '../support/serving-helpers';
import { createAccount, createAdBlock, createCampaign, openCampaign } from '../support/factories';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

type Account = { accountId: string; apiKey: string };

const REPORT = '/api/v2/openapi/report';
const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';
const COUNTED = { status: 'success', msg: 'click counted' };
const UNBILLED = { status: 'success', msg: 'click recorded, not billed: the campaign is not billable now' };
const LANDING = 'https://shop.example.com/landing?cid={click_id}&campaign={campaign_id}';

/** The database of this Jest worker on the private primary, replicated to the replica with everything else. */
const DATABASE = `adnet_replicas_w${process.env.JEST_WORKER_ID ?? '0'}`;
const withDatabase = (server: string) => `${server.replace(/\/$/, '')}/${DATABASE}`;

/**
 * Reports, lists and series read from a MySQL replica (DATABASE_REPLICA_URLS), everything else from the primary
 * (docs/SCALING.md, "Read replicas"). Runs on the private primary + replica of scripts/mariadb-replica.sh; the replica
 * is stopped (STOP SLAVE) to make its lag visible, and started again to see it catch up.
 */
(TEST_PROFILE === 'mysql' && TEST_REPLICATION ? describe : describe.skip)('Read replicas (DATABASE_REPLICA_URLS)', () => {
  let t: TestApp;
  let primary: mysql.Connection;
  let replica: mysql.Connection;
  const clock = new ManualClock();
  let advertiser: Account;
  let publisher: Account;
  let block: string;
  let cpm: string;
  let cpc: string;
  /** The UTC hour of the traffic; reports and series cover [h0, h0 + 1 h). */
  let h0: number;

  const http = () => t.http();
  const get = async (path: string, key: string, query: Record<string, string | number>): Promise<Body> => {
    const response = await http().get(path).query(query).set('x-api-key', key);
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.data;
  };
  const reportTotals = async (key: string) => (await get(REPORT, key, { from: h0, to: h0 + HOUR })).totals as Body;
  const reportCsv = async (key: string) =>
    (
      await http()
        .get(REPORT)
        .query({ from: h0, to: h0 + HOUR, groupBy: 'campaign', format: 'csv' })
        .set('x-api-key', key)
        .expect(200)
    ).text;
  const listedCampaigns = async (key: string) =>
    Object.fromEntries(
      ((await get(`${CAMPAIGN_BASE}/list`, key, { current: 1, pageSize: 100 })).campaigns as Body[]).map((c) => [
        c.id,
        { impressions: c.impressions, clicks: c.clicks, cost: c.cost },
      ]),
    );
  const listedBlocks = async (key: string) =>
    Object.fromEntries(
      ((await get(`${BLOCK_BASE}/list`, key, { current: 1, pageSize: 100 })).adBlocks as Body[]).map((b) => [
        b.adBlockId ?? b.id,
        { impressions: b.impressions, earnings: b.earnings },
      ]),
    );
  const seriesSum = async (path: string, key: string, query: Record<string, string>, column: string) => {
    const series = (await get(path, key, { ...query, from: h0, to: h0 + HOUR, granularity: 'hour' })).series as Body[];
    return series.reduce((sum, point) => sum + Number(point[column]), 0);
  };
  const campaignDetail = (campaignId: string) => get(`${CAMPAIGN_BASE}/detail`, ADMIN_KEY, { campaignId });

  /** Waits until the replica has applied everything the primary has written (GTID positions). */
  const caughtUp = async () => {
    const [[{ position }]] = (await primary.query('SELECT @@gtid_binlog_pos AS position')) as unknown as [{ position: string }[]];
    const [[{ waited }]] = (await replica.query('SELECT MASTER_GTID_WAIT(?, 20) AS waited', [position])) as unknown as [{ waited: number }[]];
    if (Number(waited) !== 0) throw new Error(`the replica did not reach ${position} within 20 s`);
  };
  const stopReplication = () => replica.query('STOP SLAVE');
  const startReplication = async () => {
    await replica.query('START SLAVE');
    await caughtUp();
  };
  const rowsOn = async (server: mysql.Connection, sql: string, params: unknown[]) => {
    const [rows] = (await server.query(sql, params)) as unknown as [Record<string, unknown>[]];
    return rows;
  };
  const serve = async (campaignId: string, user: string, adBlockId: string, key: string) => {
    const ad = (await fetchAds(t, key, adBlockId, user, { ip: IP.US, ua: UA.iOS })).find((a) => a.campaignId === campaignId);
    if (!ad) throw new Error(`campaign ${campaignId} was not served`);
    return ad;
  };
  const click = async (ad: Body, user: string, key: string) =>
    (
      await http()
        .post(CLICK)
        .set('x-api-key', key)
        .set('x-forwarded-for', IP.US)
        .set('user-agent', UA.iOS)
        .send({ eventType: 'click', eventData: { adBlockId: ad.adBlockId, messengerUserId: user, adId: ad.adId, campaignId: ad.campaignId } })
    ).body.data;

  beforeAll(async () => {
    primary = await mysql.createConnection({ uri: TEST_REPLICATION!.primary, multipleStatements: true });
    replica = await mysql.createConnection({ uri: TEST_REPLICATION!.replica });
    // a file left stopped by an earlier run would never see the schema
    await replica.query('START SLAVE');
    await primary.query(`CREATE DATABASE IF NOT EXISTS \`${DATABASE}\``);
    t = await startTestApp(
      { DATABASE_URL: withDatabase(TEST_REPLICATION!.primary), DATABASE_REPLICA_URLS: withDatabase(TEST_REPLICATION!.replica), TRUST_PROXY: 'true' },
      { clock },
    );
    // 10 minutes into the next UTC hour: the traffic stays in one hour
    clock.advance(HOUR - (Date.now() % HOUR) + 10 * MINUTE);
    const start = clock.now();
    h0 = start - (start % HOUR);
    advertiser = await createAccount(t, ['advertiser'], 'Replica advertiser');
    publisher = await createAccount(t, ['publisher'], 'Replica publisher');
    block = await createAdBlock(t, publisher.apiKey, 'Replica block');
    cpm = await createServable(t, advertiser.apiKey, openCampaign({ name: 'cpm', bidding: { billingType: 'CPM', costPer: 2 } }, clock.now()));
    cpc = await createServable(t, advertiser.apiKey, openCampaign({ name: 'cpc', bidding: { billingType: 'CPC', costPer: 0.5 } }, clock.now()));
    await caughtUp();
  });
  afterAll(async () => {
    await replica?.query('START SLAVE');
    await t?.close();
    await primary?.end();
    await replica?.end();
  });

  it('should show reports, lists and series from the replica: behind while it is stopped, exact once it caught up', async () => {
    await stopReplication();
    const users = [newUser('replica'), newUser('replica')];
    const cpcAd = await serve(cpc, users[0], block, publisher.apiKey);
    await serve(cpc, users[1], block, publisher.apiKey);
    clock.advance(5000);
    expect(await click(cpcAd, users[0], publisher.apiKey)).toEqual(COUNTED);
    await flushStats(t);
    const late = await createCampaign(t, advertiser.apiKey, openCampaign({ name: 'created while the replica is stopped' }, clock.now()));

    // the primary has it all: the details (primary reads) show it
    expect(await campaignDetail(cpm)).toEqual(expect.objectContaining({ impressions: 2, clicks: 0, cost: 0.004 }));
    expect(await campaignDetail(cpc)).toEqual(expect.objectContaining({ impressions: 2, clicks: 1, cost: 0.5 }));
    expect(await blockDetail(t, publisher.apiKey, block)).toEqual(expect.objectContaining({ impressions: 4, clicks: 1, earnings: 0.3528 }));
    expect(await campaignDetail(late)).toEqual(expect.objectContaining({ name: 'created while the replica is stopped' }));
    const rollup = `SELECT COALESCE(SUM(impressions), 0) AS impressions FROM \`${DATABASE}\`.stats_report_hourly WHERE campaignId IN (?, ?)`;
    expect(await rowsOn(primary, rollup, [cpm, cpc])).toEqual([{ impressions: '4' }]);
    expect(await rowsOn(replica, rollup, [cpm, cpc])).toEqual([{ impressions: '0' }]);

    // the report, the lists and the series are the replica's: none of it yet
    const nothing = { impressions: 0, clicks: 0, cost: 0 };
    expect(await reportTotals(advertiser.apiKey)).toEqual(expect.objectContaining(nothing));
    expect(await reportCsv(advertiser.apiKey)).toBe(
      'campaignId,impressions,clicks,ctr,conversions,completions,onboard,register,play,payment,withdraw,cost,unbilledClicks,invalidClicks,invalidImpressions,views\r\n',
    );
    expect(await listedCampaigns(advertiser.apiKey)).toEqual({ [cpm]: nothing, [cpc]: nothing });
    expect(await listedBlocks(publisher.apiKey)).toEqual({ [block]: { impressions: 0, earnings: 0 } });
    expect(await seriesSum('/api/v2/openapi/ad/campaign/stats', advertiser.apiKey, { campaignId: cpc }, 'clicks')).toBe(0);
    expect(await seriesSum('/api/v2/openapi/ad/block/stats', publisher.apiKey, { adBlockId: block }, 'impressions')).toBe(0);

    await startReplication();
    expect(await reportTotals(advertiser.apiKey)).toEqual(expect.objectContaining({ impressions: 4, clicks: 1, cost: 0.504 }));
    expect((await reportCsv(advertiser.apiKey)).split('\r\n').filter(Boolean)).toHaveLength(3);
    expect(await listedCampaigns(advertiser.apiKey)).toEqual({
      [cpm]: { impressions: 2, clicks: 0, cost: 0.004 },
      [cpc]: { impressions: 2, clicks: 1, cost: 0.5 },
      [late]: nothing,
    });
    expect(await listedBlocks(publisher.apiKey)).toEqual({ [block]: { impressions: 4, earnings: 0.3528 } });
    expect(await seriesSum('/api/v2/openapi/ad/campaign/stats', advertiser.apiKey, { campaignId: cpc }, 'clicks')).toBe(1);
    expect(await seriesSum('/api/v2/openapi/ad/block/stats', publisher.apiKey, { adBlockId: block }, 'impressions')).toBe(4);
  });

  it('should keep keys, serving, clicks, budgets and attribution on the primary: exact while the replica lacks every row they use', async () => {
    // only the campaign below serves, so the block's figures are its own
    await endAllCampaigns(t);
    await stopReplication();
    // an account, its key, a block and a CPC campaign of one click's budget that exist on the primary only
    const buyer = await createAccount(t, ['advertiser'], 'Created while the replica is stopped');
    const shelf = await createAdBlock(t, publisher.apiKey, 'Created while the replica is stopped');
    const campaign = await createServable(
      t,
      buyer.apiKey,
      openCampaign(
        {
          budget: { amount: 0.5, total: 0.5 },
          bidding: { billingType: 'CPC', costPer: 0.5 },
          ad: { destination: { actionType: 'visit.website', url: LANDING } },
        },
        clock.now(),
      ),
    );
    const [first, second] = [newUser('money'), newUser('money')];
    const firstAd = await serve(campaign, first, shelf, publisher.apiKey);
    const secondAd = await serve(campaign, second, shelf, publisher.apiKey);
    clock.advance(5000);
    expect(await click(firstAd, first, publisher.apiKey)).toEqual(COUNTED);
    // the budget (one click) is spent: the second click is stored unbilled
    expect(await click(secondAd, second, publisher.apiKey)).toEqual(UNBILLED);
    const clickId = new URL(firstAd.destination.url).searchParams.get('cid');
    const conversion = await http().post(CONVERSION).set('x-api-key', buyer.apiKey).send({ eventType: 'conversion', eventData: { clickId } });
    expect(conversion.body).toEqual({ status: 'success', msg: 'attributed to a click' });
    await flushStats(t);

    const exact = { impressions: 2, clicks: 1, unbilledClicks: 1, cost: 0.5, conversions: 1 };
    expect(await campaignDetail(campaign)).toEqual(expect.objectContaining(exact));
    expect(await blockDetail(t, publisher.apiKey, shelf)).toEqual(expect.objectContaining({ impressions: 2, clicks: 1, unbilledClicks: 1, earnings: 0.35 }));
    // none of these rows is on the replica: a read of it could not have given the answers above
    for (const [table, id] of [
      ['accounts', buyer.accountId],
      ['ad_blocks', shelf],
      ['campaigns', campaign],
    ]) {
      expect(await rowsOn(replica, `SELECT COUNT(*) AS n FROM \`${DATABASE}\`.${table} WHERE id = ?`, [id])).toEqual([{ n: 0 }]);
    }
    expect(await reportTotals(buyer.apiKey)).toEqual(expect.objectContaining({ impressions: 0, clicks: 0, cost: 0, conversions: 0 }));

    await startReplication();
    expect(await reportTotals(buyer.apiKey)).toEqual(expect.objectContaining({ impressions: 2, clicks: 1, unbilledClicks: 1, cost: 0.5, conversions: 1 }));
  });
});

(TEST_PROFILE === 'mysql' ? describe : describe.skip)('Read replicas out of reach', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('should answer reports, lists and series from the primary when no replica gives a connection, and log it', async () => {
    const unreachable = new URL(TEST_DATABASE_URL);
    // nothing listens on port 1: every connection is refused at once
    unreachable.port = '1';
    t = await startTestApp({ DATABASE_REPLICA_URLS: unreachable.toString() });
    const advertiser = await createAccount(t, ['advertiser'], 'No replica advertiser');
    const publisher = await createAccount(t, ['publisher'], 'No replica publisher');
    const block = await createAdBlock(t, publisher.apiKey, 'No replica block');
    const campaign = await createServable(t, advertiser.apiKey, openCampaign({ bidding: { billingType: 'CPM', costPer: 2 } }));
    const now = Date.now();
    expect((await fetchAds(t, publisher.apiKey, block, newUser('noreplica'))).map((ad) => ad.campaignId)).toEqual([campaign]);
    await flushStats(t);

    const data = async (path: string, key: string, query: Record<string, string | number>) =>
      (await t.http().get(path).query(query).set('x-api-key', key).expect(200)).body.data as Body;
    expect((await data(REPORT, advertiser.apiKey, { from: now - HOUR, to: now + HOUR })).totals).toEqual(
      expect.objectContaining({ impressions: 1, cost: 0.002 }),
    );
    expect((await data(`${CAMPAIGN_BASE}/list`, advertiser.apiKey, {})).campaigns).toEqual([expect.objectContaining({ id: campaign, impressions: 1 })]);
    expect((await data(`${BLOCK_BASE}/list`, publisher.apiKey, {})).adBlocks).toEqual([expect.objectContaining({ impressions: 1, earnings: 0.0014 })]);
    const series = (await data('/api/v2/openapi/ad/block/stats', publisher.apiKey, { adBlockId: block, from: now - HOUR, to: now + HOUR })).series as Body[];
    expect(series.reduce((sum, point) => sum + Number(point.impressions), 0)).toBe(1);
    expect(t.logs.some((line) => line.includes('no read replica gave a connection: this read goes to the primary (said once per 10 s)'))).toBe(true);
  });
});
