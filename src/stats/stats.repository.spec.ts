import { DataSource, Repository } from 'typeorm';
import type { AppConfig } from '../app-config';
import { EVENT_COUNTER_COLUMN_LIST } from '../conversions/event-types';
import type { StatsHourly } from './entities/stats-hourly.entity';
import { StatsRepository } from './stats.repository';

const HOUR = 3_600_000;

/** Only the counter columns the repository writes: its statements run on SQLite as they do in the application. */
async function counterTables(): Promise<DataSource> {
  const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
  await dataSource.initialize();
  const counters = (names: string[]) => names.map((name) => `${name} bigint NOT NULL DEFAULT 0`).join(', ');
  const traffic = ['unbilledClicks', 'invalidClicks', 'invalidImpressions', 'views'];
  await dataSource.query(
    `CREATE TABLE stats_hourly (campaignId varchar(26) NOT NULL, adBlockId varchar(26) NOT NULL, hour bigint NOT NULL,
       ${counters(['impressions', 'clicks', ...EVENT_COUNTER_COLUMN_LIST, 'verifiedClicks', 'spendMicros', 'earningsMicros', ...traffic])},
       PRIMARY KEY (campaignId, adBlockId, hour))`,
  );
  await dataSource.query(
    `CREATE TABLE campaigns (id varchar(26) PRIMARY KEY NOT NULL,
       ${counters(['impressions', 'clicks', ...EVENT_COUNTER_COLUMN_LIST, 'verifiedClicks', 'spentMicros', 'daySpentMicros', ...traffic])},
       spentDay varchar(10) NOT NULL DEFAULT '')`,
  );
  await dataSource.query(`CREATE TABLE ad_blocks (id varchar(26) PRIMARY KEY NOT NULL, ${counters(['impressions', 'clicks', 'earningsMicros', ...traffic])})`);
  return dataSource;
}

const noTraffic = { unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 0, views: 0 };
const noCustomEvents = { onboardEvents: 0, registerEvents: 0, playEvents: 0, paymentEvents: 0, withdrawEvents: 0 };

describe(StatsRepository.name, () => {
  let dataSource: DataSource;
  // The series reads go through the ORM (covered by the e2e stats specs); these specs write counters only.
  const repository = new StatsRepository({ database: { type: 'sqlite', location: ':memory:' } } as AppConfig, undefined as unknown as Repository<StatsHourly>);

  beforeEach(async () => {
    dataSource = await counterTables();
  });
  afterEach(async () => {
    await dataSource.destroy();
  });

  it('should add to an hourly row and create the missing ones, every counter in one statement', async () => {
    await repository.addHourly(dataSource, [
      { campaignId: 'c1', adBlockId: 'b1', hour: HOUR, impressions: 2, clicks: 1, spendMicros: 900, earningsMicros: 630, invalidImpressions: 1 },
      { campaignId: 'c1', adBlockId: '', hour: HOUR, conversions: 1 },
    ]);
    await repository.addHourly(dataSource, [
      { campaignId: 'c1', adBlockId: 'b1', hour: HOUR, impressions: 1, spendMicros: 100, earningsMicros: 70, verifiedClicks: 1, unbilledClicks: 2, views: 3 },
    ]);
    await repository.addHourly(dataSource, [{ campaignId: 'c1', adBlockId: '', hour: HOUR, conversions: 1 }]);
    await repository.addHourly(dataSource, [{ campaignId: 'c1', adBlockId: '', hour: HOUR, paymentEvents: 1 }]);
    await repository.addHourly(dataSource, [{ campaignId: 'c1', adBlockId: '', hour: HOUR, paymentEvents: 1, playEvents: 1 }]);

    const rows = await dataSource.query('SELECT * FROM stats_hourly ORDER BY adBlockId');
    expect(rows).toEqual([
      {
        campaignId: 'c1',
        adBlockId: '',
        hour: HOUR,
        impressions: 0,
        clicks: 0,
        conversions: 2,
        ...noCustomEvents,
        playEvents: 1,
        paymentEvents: 2,
        verifiedClicks: 0,
        spendMicros: 0,
        earningsMicros: 0,
        ...noTraffic,
      },
      {
        campaignId: 'c1',
        adBlockId: 'b1',
        hour: HOUR,
        impressions: 3,
        clicks: 1,
        conversions: 0,
        ...noCustomEvents,
        verifiedClicks: 1,
        spendMicros: 1000,
        earningsMicros: 700,
        unbilledClicks: 2,
        invalidClicks: 0,
        invalidImpressions: 1,
        views: 3,
      },
    ]);
  });

  it("should add a campaign's spend to its day's spend on the same day, start a newer day afresh and leave it for an older one", async () => {
    await dataSource.query(
      "INSERT INTO campaigns (id, spentMicros, daySpentMicros, spentDay) VALUES ('same', 500, 300, '1970-01-02'), ('newer', 500, 300, '1970-01-01'), ('older', 500, 300, '1970-01-03')",
    );
    const change = (id: string) => ({ id, impressions: 1, clicks: 2, spend: 70, day: '1970-01-02', daySpend: 40, ...noTraffic, invalidClicks: 1, views: 5 });
    await repository.addCampaignCounters(dataSource, [change('newer'), change('older'), change('same')]);

    const rows = await dataSource.query(
      'SELECT id, impressions, clicks, invalidClicks, views, spentMicros, daySpentMicros, spentDay FROM campaigns ORDER BY id',
    );
    expect(rows).toEqual([
      { id: 'newer', impressions: 1, clicks: 2, invalidClicks: 1, views: 5, spentMicros: 570, daySpentMicros: 40, spentDay: '1970-01-02' },
      { id: 'older', impressions: 1, clicks: 2, invalidClicks: 1, views: 5, spentMicros: 570, daySpentMicros: 300, spentDay: '1970-01-03' },
      { id: 'same', impressions: 1, clicks: 2, invalidClicks: 1, views: 5, spentMicros: 570, daySpentMicros: 340, spentDay: '1970-01-02' },
    ]);
  });

  it('should add block totals, and events of each type and verified clicks to the campaign', async () => {
    await dataSource.query("INSERT INTO ad_blocks (id) VALUES ('b1'), ('b2')");
    await dataSource.query("INSERT INTO campaigns (id) VALUES ('c1')");
    await repository.addBlockCounters(dataSource, [
      { id: 'b1', impressions: 3, clicks: 1, earnings: 630, unbilledClicks: 1, invalidClicks: 0, invalidImpressions: 2, views: 4 },
    ]);
    await repository.addCampaignEvent(dataSource, 'c1', 'conversion');
    await repository.addCampaignEvent(dataSource, 'c1', 'withdraw');
    await repository.addCampaignEvent(dataSource, 'c1', 'withdraw');
    await repository.addCampaignEvent(dataSource, 'c1', 'onboard');
    await repository.addCampaignVerifiedClick(dataSource, 'c1');
    await repository.addCampaignVerifiedClick(dataSource, 'c1');

    expect(await dataSource.query('SELECT * FROM ad_blocks ORDER BY id')).toEqual([
      { id: 'b1', impressions: 3, clicks: 1, earningsMicros: 630, unbilledClicks: 1, invalidClicks: 0, invalidImpressions: 2, views: 4 },
      { id: 'b2', impressions: 0, clicks: 0, earningsMicros: 0, ...noTraffic },
    ]);
    expect(await dataSource.query(`SELECT ${EVENT_COUNTER_COLUMN_LIST.join(', ')}, verifiedClicks FROM campaigns`)).toEqual([
      { conversions: 1, ...noCustomEvents, onboardEvents: 1, withdrawEvents: 2, verifiedClicks: 2 },
    ]);
  });
});
