import { Inject, Injectable } from '@nestjs/common';
import { DATABASE_CONFIG, DatabaseConfig } from '../database/database.config';
import { InjectRepository } from '@nestjs/typeorm';
import { Between, Repository } from 'typeorm';
import { LruCache } from '../common/lru-cache';
import type { Queryable } from '../database/queryable';
import { readFromReplica } from '../database/replica-reads';
import { EVENT_COUNTER_COLUMN_LIST, EVENT_COUNTER_COLUMNS, type EventCounterColumn, type EventType } from '../conversions/event-types';
import { StatsHourly } from './entities/stats-hourly.entity';
import { withFields } from '../common/with-fields';

/**
 * The counters beside the billed ones: the traffic never billed (docs/TRUST_AND_SAFETY.md) and the views the
 * ton-ai-sdk reports (docs/CONTRACT.md §14).
 */
/** One campaign's impressions and events of one type on one ad block over a window (blockEventTotals). */
export interface CampaignBlockTotals {
  campaignId: string;
  adBlockId: string;
  impressions: number;
  clicks: number;
  events: number;
}

export interface TrafficCounts {
  unbilledClicks: number;
  invalidClicks: number;
  invalidImpressions: number;
  views: number;
}

export const TRAFFIC_COLUMNS = ['unbilledClicks', 'invalidClicks', 'invalidImpressions', 'views'] as const;

/** The traffic counters' columns of a derived table's first row, and the places of the next rows. */
const TRAFFIC_ALIASES = TRAFFIC_COLUMNS.map((column) => `? AS ${column}`).join(', ');
const TRAFFIC_PLACES = TRAFFIC_COLUMNS.map(() => '?').join(', ');

/** The counters of one `stats_hourly` row that a write adds to (a missing counter adds 0). */
const HOURLY_COUNTERS = [
  'impressions',
  'clicks',
  'spendMicros',
  'earningsMicros',
  ...TRAFFIC_COLUMNS,
  ...EVENT_COUNTER_COLUMN_LIST,
  'verifiedClicks',
  'completions',
  'rewardsCapped',
] as const;

export type HourlyCounter = (typeof HOURLY_COUNTERS)[number];

export type HourlyIncrement = { campaignId: string; adBlockId: string; hour: number } & Partial<Record<HourlyCounter, number>>;

/** The viewer's country (ISO code) and platform a report row is split by; `''` when unknown. */
export interface Segment {
  country: string;
  platform: string;
}

/** An increment of a `stats_report_hourly` row: a `stats_hourly` increment split by country and platform. */
export type ReportIncrement = HourlyIncrement & Segment;

export interface CampaignCounterChange extends TrafficCounts {
  id: string;
  impressions: number;
  clicks: number;
  spend: number;
  /** The newest UTC day among the changes, and the spend of that day. */
  day: string;
  daySpend: number;
}

export interface BlockCounterChange extends TrafficCounts {
  id: string;
  impressions: number;
  clicks: number;
  earnings: number;
}

/**
 * Every counter statement: the `stats_hourly` upsert and the campaign and ad block totals, and the series reads.
 * Writes run on the caller's transaction (`into`), so the counters commit together with what they count.
 */
@Injectable()
export class StatsRepository {
  private readonly mysql: boolean;
  /**
   * Statement texts by shape (statement, row count, counters named): a flush writes chunks of the same size, and
   * building each chunk's text again was a sixth of a flush's time.
   */
  private readonly texts = new LruCache<string, readonly string[]>(64);

  constructor(
    @Inject(DATABASE_CONFIG) config: DatabaseConfig,
    @InjectRepository(StatsHourly) private readonly hourly: Repository<StatsHourly>,
  ) {
    this.mysql = config.database.type === 'mysql';
  }

  /**
   * The hourly rows of one campaign or one ad block whose hour lies in [firstHour, lastHour], from the primary: the
   * click path's check that an impression was counted (StatsService.servedOnBlockBetween) must not lag.
   */
  hourlyRows(of: { campaignId: string } | { adBlockId: string }, firstHour: number, lastHour: number): Promise<StatsHourly[]> {
    return this.hourly.find({ where: withFields(of, { hour: Between(firstHour, lastHour) }) });
  }

  /** The same rows for a series (a chart): read from a replica when there are some. */
  seriesRows(of: { campaignId: string } | { adBlockId: string }, firstHour: number, lastHour: number): Promise<StatsHourly[]> {
    return readFromReplica(this.hourly.manager.dataSource, (manager) =>
      manager.find(StatsHourly, { where: withFields(of, { hour: Between(firstHour, lastHour) }) }),
    );
  }

  /**
   * Impressions and attributed events of one event type per (campaign, ad block) since `firstHour`, for these
   * campaigns (optimization, src/serving/block-optimization.ts); read from a replica when there are some. Rows of no
   * block (exchange, conversions before blocks were credited) are left out.
   */
  blockEventTotals(campaignIds: readonly string[], eventColumn: EventCounterColumn, firstHour: number): Promise<CampaignBlockTotals[]> {
    if (campaignIds.length === 0) return Promise.resolve([]);
    const places = campaignIds.map(() => '?').join(', ');
    return readFromReplica(this.hourly.manager.dataSource, async (manager) => {
      const rows: Record<string, string | number>[] = await manager.query(
        `SELECT campaignId, adBlockId, SUM(impressions) AS impressions, SUM(clicks) AS clicks, SUM(${eventColumn}) AS events FROM stats_hourly ` +
          `WHERE campaignId IN (${places}) AND hour >= ? AND adBlockId <> '' GROUP BY campaignId, adBlockId`,
        [...campaignIds, firstHour],
      );
      return rows.map((row) => ({
        campaignId: String(row.campaignId),
        adBlockId: String(row.adBlockId),
        impressions: Number(row.impressions),
        clicks: Number(row.clicks),
        events: Number(row.events),
      }));
    });
  }

  /**
   * Adds to the hourly rows, creating the missing ones; one statement for all the rows given. Only the counters some
   * row names are in the statement (a group commit of clicks names no event counter).
   */
  async addHourly(into: Queryable, rows: HourlyIncrement[]): Promise<void> {
    await this.upsertCounters(into, 'stats_hourly', ['campaignId', 'adBlockId', 'hour'], rows);
  }

  /**
   * The report rollup's rows (`stats_report_hourly`), as addHourly: every caller of addHourly writes the same
   * increments here, split by country and platform, in the same transaction.
   */
  async addReportHourly(into: Queryable, rows: ReportIncrement[]): Promise<void> {
    await this.upsertCounters(into, 'stats_report_hourly', ['campaignId', 'adBlockId', 'hour', 'country', 'platform'], rows);
  }

  private async upsertCounters<Row extends HourlyIncrement>(into: Queryable, table: string, keys: readonly (keyof Row & string)[], rows: Row[]): Promise<void> {
    const counters = HOURLY_COUNTERS.filter((column) => rows.some((row) => row[column] !== undefined));
    // plain loops into one array: a flush builds these values for thousands of rows a second on the event loop, and
    // spreads of per-row arrays were a fifth of its time
    const values: unknown[] = new Array(rows.length * (keys.length + counters.length));
    let at = 0;
    for (const row of rows) {
      for (const key of keys) values[at++] = row[key];
      for (const column of counters) values[at++] = row[column] ?? 0;
    }
    const [sql] = this.statementsOf(`${table}|${rows.length}|${counters.join(',')}`, () => {
      const keyPlaces = keys.map(() => '?').join(', ');
      const placeholders = rows.map(() => `(${keyPlaces}, ${counters.map(() => '?').join(', ')})`).join(', ');
      const columns = `(${keys.join(', ')}, ${counters.join(', ')})`;
      const add = (incoming: (column: string) => string) => counters.map((column) => `${column} = ${column} + ${incoming(column)}`).join(', ');
      const conflict = this.mysql
        ? `ON DUPLICATE KEY UPDATE ${add((column) => `VALUES(${column})`)}`
        : `ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${add((column) => `excluded.${column}`)}`;
      return [`INSERT INTO ${table} ${columns} VALUES ${placeholders} ${conflict}`];
    });
    await into.query(sql, values);
  }

  /**
   * One statement (SQLite) or statement pair (MySQL) for all the campaigns given (not one per row): rows in id order
   * lock in one order.
   */
  async addCampaignCounters(into: Queryable, rows: CampaignCounterChange[]): Promise<void> {
    const values = rows.flatMap((row) => [row.id, row.impressions, row.clicks, row.spend, row.day, row.daySpend, ...trafficValues(row)]);
    const statements = this.statementsOf(`campaigns|${rows.length}`, () => {
      const derived = rows
        .map((_, i) =>
          i === 0
            ? `SELECT ? AS id, ? AS impressions, ? AS clicks, ? AS spend, ? AS day, ? AS daySpend, ${TRAFFIC_ALIASES}`
            : `SELECT ?, ?, ?, ?, ?, ?, ${TRAFFIC_PLACES}`,
        )
        .join(' UNION ALL ');
      // The day's spend must be computed from the old spentDay. SQLite, like standard SQL, reads the old row in every
      // SET expression: one statement (a second rewrite of each campaign row was half a flush's time). A multi-table
      // UPDATE on MySQL sets columns in no promised order: two statements, spentDay last.
      // t: how the updated columns are named (MySQL needs the alias beside the derived table's columns); c: how read.
      const t = this.mysql ? 'c.' : '';
      const c = this.mysql ? 'c.' : 'campaigns.';
      const counters = `${t}impressions = ${c}impressions + d.impressions, ${t}clicks = ${c}clicks + d.clicks,
       ${trafficAssignments(t, c)},
       ${t}spentMicros = ${c}spentMicros + d.spend,
       ${t}daySpentMicros = CASE WHEN ${c}spentDay = d.day THEN ${c}daySpentMicros + d.daySpend WHEN ${c}spentDay < d.day THEN d.daySpend ELSE ${c}daySpentMicros END`;
      const day = `${t}spentDay = CASE WHEN ${c}spentDay < d.day THEN d.day ELSE ${c}spentDay END`;
      const update = (assignments: string) =>
        this.mysql
          ? `UPDATE campaigns c JOIN (${derived}) d ON c.id = d.id SET ${assignments}`
          : `UPDATE campaigns SET ${assignments} FROM (${derived}) AS d WHERE campaigns.id = d.id`;
      return this.mysql ? [update(counters), update(day)] : [update(`${counters},\n       ${day}`)];
    });
    for (const sql of statements) await into.query(sql, values);
  }

  async addBlockCounters(into: Queryable, rows: BlockCounterChange[]): Promise<void> {
    const derived = rows
      .map((_, i) => (i === 0 ? `SELECT ? AS id, ? AS impressions, ? AS clicks, ? AS earnings, ${TRAFFIC_ALIASES}` : `SELECT ?, ?, ?, ?, ${TRAFFIC_PLACES}`))
      .join(' UNION ALL ');
    const values = rows.flatMap((row) => [row.id, row.impressions, row.clicks, row.earnings, ...trafficValues(row)]);
    await into.query(
      this.mysql
        ? `UPDATE ad_blocks b JOIN (${derived}) d ON b.id = d.id SET b.impressions = b.impressions + d.impressions,
             b.clicks = b.clicks + d.clicks, b.earningsMicros = b.earningsMicros + d.earnings, ${trafficAssignments('b.', 'b.')}`
        : `UPDATE ad_blocks SET impressions = ad_blocks.impressions + d.impressions, clicks = ad_blocks.clicks + d.clicks,
             earningsMicros = ad_blocks.earningsMicros + d.earnings, ${trafficAssignments('', 'ad_blocks.')}
             FROM (${derived}) AS d WHERE ad_blocks.id = d.id`,
      values,
    );
  }

  private statementsOf(shape: string, build: () => string[]): readonly string[] {
    let text = this.texts.get(shape);
    if (text === undefined) {
      text = build();
      this.texts.set(shape, text);
    }
    return text;
  }

  async addCampaignEvent(into: Queryable, campaignId: string, eventType: EventType): Promise<void> {
    const column = EVENT_COUNTER_COLUMNS[eventType];
    await into.query(`UPDATE campaigns SET ${column} = ${column} + 1 WHERE id = ?`, [campaignId]);
  }

  /** A counted completion on the campaign and the block (and, past the block's daily reward cap, a capped reward). */
  async addCompletion(into: Queryable, campaignId: string, adBlockId: string, rewardCapped: boolean): Promise<void> {
    await into.query('UPDATE campaigns SET completions = completions + 1 WHERE id = ?', [campaignId]);
    const capped = rewardCapped ? ', rewardsCapped = rewardsCapped + 1' : '';
    await into.query(`UPDATE ad_blocks SET completions = completions + 1${capped} WHERE id = ?`, [adBlockId]);
  }

  async addCampaignVerifiedClick(into: Queryable, campaignId: string): Promise<void> {
    await into.query('UPDATE campaigns SET verifiedClicks = verifiedClicks + 1 WHERE id = ?', [campaignId]);
  }
}

export function trafficValues(counts: TrafficCounts): number[] {
  return TRAFFIC_COLUMNS.map((column) => counts[column]);
}

/** `t`: how an updated column is named, `c`: how it is read (see addCampaignCounters); `d` is the derived table. */
function trafficAssignments(t: string, c: string): string {
  return TRAFFIC_COLUMNS.map((column) => `${t}${column} = ${c}${column} + d.${column}`).join(', ');
}
