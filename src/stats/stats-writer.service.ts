import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { utcDay } from '../campaigns/campaign-rules';
import { hourStart } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Click } from '../events/entities/click.entity';
import { Queryable, StatementBatch } from './statement-batch';
import { WriteLedger } from './write-ledger';

export interface ImpressionRecord {
  campaignId: string;
  adBlockId: string;
  costMicros: number;
  earningsMicros: number;
  /** General invalid traffic: counted in `invalidImpressions` only, never billed. */
  invalid?: boolean;
}

/** The traffic counters beside the billed ones (docs/TRUST_AND_SAFETY.md). */
interface TrafficCounts {
  unbilledClicks: number;
  invalidClicks: number;
  invalidImpressions: number;
}

interface Delta extends TrafficCounts {
  campaignId: string;
  adBlockId: string;
  hour: number;
  impressions: number;
  clicks: number;
  spendMicros: number;
  earningsMicros: number;
}

interface PendingClick {
  click: Click;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const MAX_CLICKS_PER_FLUSH = 500;
/** Rows per multi-row UPDATE. */
const UPDATE_CHUNK = 200;

interface CampaignChange extends TrafficCounts {
  id: string;
  impressions: number;
  clicks: number;
  spend: number;
  /** The newest UTC day among the changes, and the spend of that day. */
  day: string;
  daySpend: number;
}

interface BlockChange extends TrafficCounts {
  id: string;
  impressions: number;
  clicks: number;
  earnings: number;
}

/**
 * The one writer of counters. Impressions are summed in memory and written every STATS_FLUSH_MS (a crash can
 * lose that much of the impression *statistics*; budgets are enforced by the serving state and stay exact).
 * Clicks are written before their request is answered, grouped: every click waiting when a write starts goes
 * into the same transaction (click rows, hourly stats, campaign and block totals), so load raises the batch
 * size instead of the number of transactions.
 */
@Injectable()
export class StatsWriterService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(StatsWriterService.name);
  private deltas = new Map<string, Delta>();
  private pendingClicks: PendingClick[] = [];
  private writing: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly mysql: boolean;
  private readonly ledger: WriteLedger<Map<string, Delta>>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.mysql = config.database.type === 'mysql';
    this.ledger = new WriteLedger(dataSource, this.logger, (deltas) => {
      for (const [key, delta] of deltas) this.mergeBack(key, delta);
    });
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.config.statsFlushMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  recordImpressions(records: ImpressionRecord[], now: number): void {
    const hour = hourStart(now);
    for (const record of records) {
      const delta = this.deltaFor(record.campaignId, record.adBlockId, hour);
      if (record.invalid) {
        delta.invalidImpressions += 1;
        continue;
      }
      delta.impressions += 1;
      delta.spendMicros += record.costMicros;
      delta.earningsMicros += record.earningsMicros;
    }
  }

  /** Resolves once the click is committed to the database. */
  recordClick(click: Click): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pendingClicks.push({ click, resolve, reject });
      void this.flush();
    });
  }

  /** Writes everything buffered so far; waits for a write already under way and runs once more if needed. */
  async flush(): Promise<void> {
    if (this.writing) {
      this.again = true;
      return this.writing;
    }
    this.writing = (async () => {
      try {
        do {
          this.again = false;
          await this.writeBatch();
        } while (this.again || this.pendingClicks.length > 0);
      } finally {
        // cleared in the same step as the last check: a flush() arriving later starts a new write instead of
        // joining one that will not look at `again` any more
        this.writing = null;
      }
    })();
    return this.writing;
  }

  private async writeBatch(): Promise<void> {
    await this.ledger.settle();
    const clicks = this.pendingClicks.splice(0, MAX_CLICKS_PER_FLUSH);
    const deltas = this.deltas;
    this.deltas = new Map();
    if (clicks.length === 0 && deltas.size === 0) return;

    // Copies: the clicks are added to these rows, and on a failed write only the impression deltas go back.
    const rows = new Map([...deltas].map(([key, delta]) => [key, { ...delta }]));
    for (const { click } of clicks) {
      const key = deltaKey(click.campaignId, click.adBlockId, hourStart(click.createdAt));
      const delta = rows.get(key) ?? emptyDelta(click.campaignId, click.adBlockId, hourStart(click.createdAt));
      if (click.status === 'unbilled') delta.unbilledClicks += 1;
      else if (click.status === 'invalid') delta.invalidClicks += 1;
      else delta.clicks += 1;
      delta.spendMicros += click.costMicros;
      delta.earningsMicros += click.earningsMicros;
      rows.set(key, delta);
    }

    try {
      const batch = new StatementBatch();
      if (clicks.length > 0) await insertClicks(batch, clicks.map(({ click }) => click));
      await this.applyDeltas(batch, [...rows.values()]);
      if (this.mysql) await this.ledger.writeStatements(deltas, batch);
      else await this.ledger.write(deltas, (manager) => batch.run(manager, false));
      for (const pending of clicks) pending.resolve();
    } catch (error) {
      this.logger.error({ err: error }, 'stats write failed; impressions kept for the next try, clicks refused');
      for (const pending of clicks) pending.reject(error);
    }
  }

  private async applyDeltas(manager: Queryable, deltas: Delta[]): Promise<void> {
    // A fixed order keeps concurrent writers (several processes) from deadlocking on each other's rows.
    deltas.sort((a, b) => compare(a.campaignId, b.campaignId) || compare(a.adBlockId, b.adBlockId) || a.hour - b.hour);
    for (let i = 0; i < deltas.length; i += 200) await this.upsertHourly(manager, deltas.slice(i, i + 200));

    const campaigns = new Map<string, CampaignChange>();
    const blocks = new Map<string, BlockChange>();
    for (const delta of deltas) {
      const day = utcDay(delta.hour);
      let campaign = campaigns.get(delta.campaignId);
      if (!campaign) {
        campaign = { id: delta.campaignId, impressions: 0, clicks: 0, spend: 0, day, daySpend: 0, ...noTraffic() };
        campaigns.set(delta.campaignId, campaign);
      }
      campaign.impressions += delta.impressions;
      campaign.clicks += delta.clicks;
      addTraffic(campaign, delta);
      campaign.spend += delta.spendMicros;
      // Only the newest day is kept per campaign; an older day's spend counts in the total only.
      if (day > campaign.day) {
        campaign.day = day;
        campaign.daySpend = 0;
      }
      if (day === campaign.day) campaign.daySpend += delta.spendMicros;
      if (delta.adBlockId) {
        const block = blocks.get(delta.adBlockId) ?? { id: delta.adBlockId, impressions: 0, clicks: 0, earnings: 0, ...noTraffic() };
        block.impressions += delta.impressions;
        block.clicks += delta.clicks;
        addTraffic(block, delta);
        block.earnings += delta.earningsMicros;
        blocks.set(delta.adBlockId, block);
      }
    }
    // One statement per table and chunk (not one per row): a group commit of clicks across many campaigns used
    // to spend most of its time in round trips. Rows are in id order, so concurrent writers lock them in one order.
    const campaignRows = [...campaigns.values()].sort((a, b) => compare(a.id, b.id));
    for (let i = 0; i < campaignRows.length; i += UPDATE_CHUNK) await this.updateCampaigns(manager, campaignRows.slice(i, i + UPDATE_CHUNK));
    const blockRows = [...blocks.values()].sort((a, b) => compare(a.id, b.id));
    for (let i = 0; i < blockRows.length; i += UPDATE_CHUNK) await this.updateBlocks(manager, blockRows.slice(i, i + UPDATE_CHUNK));
  }

  private async updateCampaigns(manager: Queryable, rows: CampaignChange[]): Promise<void> {
    const derived = rows
      .map((_, i) =>
        i === 0
          ? 'SELECT ? AS id, ? AS impressions, ? AS clicks, ? AS spend, ? AS day, ? AS daySpend, ? AS unbilledClicks, ? AS invalidClicks, ? AS invalidImpressions'
          : 'SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?',
      )
      .join(' UNION ALL ');
    const values = rows.flatMap((row) => [row.id, row.impressions, row.clicks, row.spend, row.day, row.daySpend, ...trafficValues(row)]);
    // Two statements: a multi-table UPDATE on MySQL sets columns in no promised order, and the day's spend must be
    // computed from the old spentDay.
    // t: how the updated columns are named (MySQL needs the alias beside the derived table's columns); c: how read.
    const t = this.mysql ? 'c.' : '';
    const c = this.mysql ? 'c.' : 'campaigns.';
    const counters = `${t}impressions = ${c}impressions + d.impressions, ${t}clicks = ${c}clicks + d.clicks,
       ${trafficAssignments(t, c)},
       ${t}spentMicros = ${c}spentMicros + d.spend,
       ${t}daySpentMicros = CASE WHEN ${c}spentDay = d.day THEN ${c}daySpentMicros + d.daySpend WHEN ${c}spentDay < d.day THEN d.daySpend ELSE ${c}daySpentMicros END`;
    const day = `${t}spentDay = CASE WHEN ${c}spentDay < d.day THEN d.day ELSE ${c}spentDay END`;
    for (const assignments of [counters, day]) {
      await manager.query(
        this.mysql
          ? `UPDATE campaigns c JOIN (${derived}) d ON c.id = d.id SET ${assignments}`
          : `UPDATE campaigns SET ${assignments} FROM (${derived}) AS d WHERE campaigns.id = d.id`,
        values,
      );
    }
  }

  private async updateBlocks(manager: Queryable, rows: BlockChange[]): Promise<void> {
    const derived = rows
      .map((_, i) =>
        i === 0
          ? 'SELECT ? AS id, ? AS impressions, ? AS clicks, ? AS earnings, ? AS unbilledClicks, ? AS invalidClicks, ? AS invalidImpressions'
          : 'SELECT ?, ?, ?, ?, ?, ?, ?',
      )
      .join(' UNION ALL ');
    const values = rows.flatMap((row) => [row.id, row.impressions, row.clicks, row.earnings, ...trafficValues(row)]);
    await manager.query(
      this.mysql
        ? `UPDATE ad_blocks b JOIN (${derived}) d ON b.id = d.id SET b.impressions = b.impressions + d.impressions,
             b.clicks = b.clicks + d.clicks, b.earningsMicros = b.earningsMicros + d.earnings, ${trafficAssignments('b.', 'b.')}`
        : `UPDATE ad_blocks SET impressions = ad_blocks.impressions + d.impressions, clicks = ad_blocks.clicks + d.clicks,
             earningsMicros = ad_blocks.earningsMicros + d.earnings, ${trafficAssignments('', 'ad_blocks.')}
             FROM (${derived}) AS d WHERE ad_blocks.id = d.id`,
      values,
    );
  }

  private async upsertHourly(manager: Queryable, deltas: Delta[]): Promise<void> {
    const placeholders = deltas.map(() => '(?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)').join(', ');
    const values = deltas.flatMap((d) => [d.campaignId, d.adBlockId, d.hour, d.impressions, d.clicks, d.spendMicros, d.earningsMicros, ...trafficValues(d)]);
    const columns = `(campaignId, adBlockId, hour, impressions, clicks, conversions, spendMicros, earningsMicros, ${TRAFFIC_COLUMNS.join(', ')})`;
    const traffic = (incoming: (column: string) => string) => TRAFFIC_COLUMNS.map((column) => `${column} = ${column} + ${incoming(column)}`).join(', ');
    const conflict = this.mysql
      ? `ON DUPLICATE KEY UPDATE impressions = impressions + VALUES(impressions), clicks = clicks + VALUES(clicks),
         spendMicros = spendMicros + VALUES(spendMicros), earningsMicros = earningsMicros + VALUES(earningsMicros),
         ${traffic((column) => `VALUES(${column})`)}`
      : `ON CONFLICT (campaignId, adBlockId, hour) DO UPDATE SET impressions = impressions + excluded.impressions,
         clicks = clicks + excluded.clicks, spendMicros = spendMicros + excluded.spendMicros,
         earningsMicros = earningsMicros + excluded.earningsMicros, ${traffic((column) => `excluded.${column}`)}`;
    await manager.query(`INSERT INTO stats_hourly ${columns} VALUES ${placeholders} ${conflict}`, values);
  }

  private deltaFor(campaignId: string, adBlockId: string, hour: number): Delta {
    const key = deltaKey(campaignId, adBlockId, hour);
    let delta = this.deltas.get(key);
    if (!delta) {
      delta = emptyDelta(campaignId, adBlockId, hour);
      this.deltas.set(key, delta);
    }
    return delta;
  }

  private mergeBack(key: string, delta: Delta): void {
    const current = this.deltas.get(key);
    if (!current) {
      this.deltas.set(key, delta);
      return;
    }
    current.impressions += delta.impressions;
    current.spendMicros += delta.spendMicros;
    current.earningsMicros += delta.earningsMicros;
    current.invalidImpressions += delta.invalidImpressions;
  }
}

const TRAFFIC_COLUMNS = ['unbilledClicks', 'invalidClicks', 'invalidImpressions'] as const;

function noTraffic(): TrafficCounts {
  return { unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 0 };
}

function emptyDelta(campaignId: string, adBlockId: string, hour: number): Delta {
  return { campaignId, adBlockId, hour, impressions: 0, clicks: 0, spendMicros: 0, earningsMicros: 0, ...noTraffic() };
}

function addTraffic(into: TrafficCounts, delta: TrafficCounts): void {
  for (const column of TRAFFIC_COLUMNS) into[column] += delta[column];
}

function trafficValues(counts: TrafficCounts): number[] {
  return TRAFFIC_COLUMNS.map((column) => counts[column]);
}

/** `t`: how an updated column is named, `c`: how it is read (see updateCampaigns); `d` is the derived table. */
function trafficAssignments(t: string, c: string): string {
  return TRAFFIC_COLUMNS.map((column) => `${t}${column} = ${c}${column} + d.${column}`).join(', ');
}

const CLICK_COLUMNS = [
  'id',
  'campaignId',
  'advertiserId',
  'adBlockId',
  'adId',
  'messengerUserId',
  'costMicros',
  'earningsMicros',
  'createdAt',
  'verificationStatus',
  'status',
  'invalidReason',
] as const;

/** One multi-row INSERT: the ORM's per-entity insert cost more than the rest of a click's write. */
async function insertClicks(manager: Queryable, clicks: Click[]): Promise<void> {
  const row = `(${CLICK_COLUMNS.map(() => '?').join(', ')})`;
  await manager.query(
    `INSERT INTO clicks (${CLICK_COLUMNS.join(', ')}) VALUES ${clicks.map(() => row).join(', ')}`,
    clicks.flatMap((click) => CLICK_COLUMNS.map((column) => click[column] ?? defaultOf(column))),
  );
}

function defaultOf(column: (typeof CLICK_COLUMNS)[number]): string | number | null {
  if (column === 'verificationStatus') return 'none';
  if (column === 'status') return 'counted';
  if (column === 'invalidReason') return null;
  return 0;
}

function deltaKey(campaignId: string, adBlockId: string, hour: number): string {
  return `${campaignId}|${adBlockId}|${hour}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
