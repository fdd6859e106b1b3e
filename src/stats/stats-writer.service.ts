import { Inject, Injectable, Logger } from '@nestjs/common';
import { STATS_CONFIG, StatsConfig } from './stats.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { hourStart } from '../common/clock';
import { EVENT_COUNTER_COLUMNS, type EventType } from '../conversions/event-types';
import { CLICK_STORE, type ClickStore } from '../clicks/click-store';
import type { Click } from '../clicks/entities/click.entity';
import type { Queryable } from '../database/queryable';
import { MetricsService } from '../metrics/metrics.service';
import { BlockCounterChange, CampaignCounterChange, HourlyIncrement, Segment, StatsRepository, TRAFFIC_COLUMNS, TrafficCounts } from './stats.repository';
import { StatementBatch } from './stats-writes.repository';
import { compareIds, GroupCommitWriter, inChunks, nextTurn } from './group-commit-writer';
import { mergeSortedRuns } from '../common/merge-sorted-runs';
import { withFields } from '../common/with-fields';

export interface ImpressionRecord {
  campaignId: string;
  adBlockId: string;
  costMicros: number;
  earningsMicros: number;
  /** General invalid traffic: counted in `invalidImpressions` only, never billed. */
  invalid?: boolean;
  /** The viewer's country (ISO code) and platform, for the report rollup; null or missing: unknown. */
  country?: string | null;
  platform?: string | null;
  /** The key of the campaign's budget day the impression was served in (its spend counts in that day's). */
  day?: string;
}

/** A click to commit, with the country and platform of its request for the report rollup (not columns of `clicks`). */
/**
 * A click to commit, with the report rollup's country and platform, its budget day, and `commitBy`: when its answer
 * gives up on the write (wall-clock ms), so its group commits only before then (WriteLedger.writeBatch).
 */
/** Spend this process served and has not written yet: in all, and per budget day (its key). */
export interface UnwrittenSpend {
  totalMicros: number;
  byDay: Map<string, number>;
}

export type ClickRecord = Click & { country?: string | null; platform?: string | null; day?: string; commitBy?: number };

/** No country or platform known: events reported by the advertiser's server. */
const UNKNOWN_SEGMENT: Segment = { country: '', platform: '' };

interface Delta extends TrafficCounts, Segment {
  campaignId: string;
  adBlockId: string;
  hour: number;
  /** The key of the campaign's budget day of the spend ('' when it carries none: views, events). */
  day: string;
  impressions: number;
  clicks: number;
  spendMicros: number;
  earningsMicros: number;
}

/** Rows per multi-row UPDATE. */
const UPDATE_CHUNK = 200;
/**
 * Buffered (campaign, ad block, hour) rows per transaction: a flush of more goes in parts, a turn of the event loop
 * between them. A part holds the event loop while its statements are built (and, on SQLite, run): about a
 * millisecond for 100 rows (docs/PERFORMANCE.md#periodic-work-in-parts).
 */
const ROWS_PER_PART = 100;
/** Keys per sorted run when a flush is cut into parts (see partsOf): a run sorts in well under a millisecond. */
const SORT_RUN = 1000;

/**
 * The one writer of counters. Impressions are summed in memory and written every STATS_FLUSH_MS (a crash can
 * lose that much of the impression *statistics*; budgets are enforced by the serving state and stay exact).
 * Clicks are written before their request is answered, grouped: every click waiting when a write starts goes
 * into the same transaction (click rows, hourly stats, campaign and block totals), so load raises the batch
 * size instead of the number of transactions. Conversions, custom events and verified clicks are counted here too,
 * inside the transaction of the feature that stores them, so every counter statement comes from StatsRepository.
 */
@Injectable()
export class StatsWriterService extends GroupCommitWriter<ClickRecord, Map<string, Delta>> {
  private deltas = new Map<string, Delta>();
  /**
   * The impressions' deltas of `deltas`, by ad block (for one hour) then campaign: the ads of a request share their
   * block and hour, and the campaign ids are the index's own strings, so a served ad finds its delta without building
   * and hashing a key string (3 % of the ad fetch's CPU). Holds only deltas of the current `deltas`, reset with it.
   */
  private impressionDeltas = new Map<string, { hour: number; byCampaign: Map<string, Delta> }>();
  /** The key of impressionDeltas last built (block, country, platform): the records of one request share it. */
  private lastSegmentKey = { adBlockId: '', country: '', platform: '', key: '||' };
  /** Awaited before buffered impressions are written (see countImpressionsAfter). */
  private impressionsBilled: () => Promise<void> = () => Promise.resolve();
  /**
   * The bill of the impressions taken by the current write round, asked for by its first part that carries some and
   * awaited by the others: it covers every part, and while Redis fails a round of many parts asked once, not per part.
   */
  private roundBill: Promise<void> | undefined;
  /**
   * The deltas the write round took from the buffer and has not committed yet (its parts still to come, or being
   * written): unwritten spend too, which the round may hold over several turns of the event loop.
   */
  private roundDeltas = new Map<string, Delta>();
  /** Impression spend waived per campaign and not yet taken off impressions being written (see waiveImpressionSpend). */
  private waivedSpend = new Map<string, number>();

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(STATS_CONFIG) config: StatsConfig,
    private readonly counters: StatsRepository,
    @Inject(CLICK_STORE) private readonly clickRows: ClickStore,
    private readonly metrics: MetricsService,
  ) {
    super(dataSource, config.statsFlushMs, new Logger(StatsWriterService.name), (clicks, seconds) => metrics.observeCounterWrite('ads', clicks, seconds));
  }

  /**
   * Buffered impressions are written to the database only once `billed` resolved after they were taken from the
   * buffer: the Redis serving state bills its leases in Redis there, so an impression counted (billed to the
   * advertiser) is always one the budget counters hold too. When it fails, the write waits for the next flush.
   */
  countImpressionsAfter(billed: () => Promise<void>): void {
    this.impressionsBilled = billed;
  }

  /**
   * Takes `micros` of impression spend of the campaign off its impressions still to be written: the serving state's
   * bill found that much served from a lease its holder had lost, with the budget spent by other processes
   * meanwhile, so the advertiser is not billed for it (the network bears it; the publisher keeps the earnings, the
   * impressions stay counted). A bill answers before any impression it covers is written (see countImpressionsAfter),
   * so the waived impressions are still in this process, buffered or about to be recorded: the amount is kept per
   * campaign and taken off the campaign's next impressions written, whichever of its blocks and hours they are in.
   */
  waiveImpressionSpend(campaignId: string, micros: number): void {
    this.waivedSpend.set(campaignId, (this.waivedSpend.get(campaignId) ?? 0) + micros);
    this.metrics.countWaivedSpend(micros);
    this.logger.warn({ campaignId, micros }, 'impression spend waived: the budget was spent while a lost lease holder served');
  }

  /**
   * Spend of the given campaigns' impressions buffered here and not written yet (a write that failed puts them back):
   * what a fresh read of the database lacks of this process's spend (see src/serving/state/spend-reseed.ts).
   */
  unwrittenSpend(campaignIds: ReadonlySet<string>): Map<string, UnwrittenSpend> {
    const spend = new Map<string, UnwrittenSpend>();
    for (const delta of [...this.deltas.values(), ...this.roundDeltas.values()]) {
      if (delta.spendMicros <= 0 || !campaignIds.has(delta.campaignId)) continue;
      let campaign = spend.get(delta.campaignId);
      if (campaign === undefined) spend.set(delta.campaignId, (campaign = { totalMicros: 0, byDay: new Map() }));
      campaign.totalMicros += delta.spendMicros;
      campaign.byDay.set(delta.day, (campaign.byDay.get(delta.day) ?? 0) + delta.spendMicros);
    }
    return spend;
  }

  recordImpressions(records: ImpressionRecord[], now: number): void {
    const hour = hourStart(now);
    let invalid = 0;
    for (const record of records) {
      const delta = this.impressionDeltaFor(record.campaignId, record.adBlockId, hour, segmentOf(record), record.day ?? '');
      if (record.invalid) {
        delta.invalidImpressions += 1;
        invalid += 1;
        continue;
      }
      delta.impressions += 1;
      delta.spendMicros += record.costMicros;
      delta.earningsMicros += record.earningsMicros;
    }
    this.metrics.countImpressions(records.length - invalid, invalid);
  }

  /**
   * Views of served impressions (the ton-ai-sdk's `impression` event, docs/CONTRACT.md §14), buffered like
   * impressions: never billed, one per served impression (the serving state decides).
   */
  recordViews(records: { campaignId: string; adBlockId: string }[], now: number): void {
    const hour = hourStart(now);
    for (const record of records) this.deltaFor(record.campaignId, record.adBlockId, hour, UNKNOWN_SEGMENT, '').views += 1;
  }

  /** Resolves once the click is committed to the database. */
  recordClick(click: ClickRecord): Promise<void> {
    return this.enqueue(click);
  }

  /**
   * An attributed conversion or custom event, in the caller's transaction (the one that stores it): the campaign's
   * total of that type and the hourly row of the ad block whose click it is credited to, so that a block's series and
   * reports show the events its traffic brought (and a campaign's, where its events come from).
   */
  async countEvent(manager: EntityManager, campaignId: string, adBlockId: string, eventType: EventType, now: number): Promise<void> {
    // the flush's order (hourly rows, report rows, campaigns), so that the two never deadlock on each other's rows
    const row: HourlyIncrement = { campaignId, adBlockId, hour: hourStart(now), [EVENT_COUNTER_COLUMNS[eventType]]: 1 };
    await this.counters.addHourly(manager, [row]);
    await this.counters.addReportHourly(manager, [withFields(row, UNKNOWN_SEGMENT)]);
    await this.counters.addCampaignEvent(manager, campaignId, eventType);
  }

  /** A verified click, in the caller's transaction: it counts in the hour and block of the click itself, beside its click count. */
  async countVerifiedClick(manager: EntityManager, click: { campaignId: string; adBlockId: string; createdAt: number }): Promise<void> {
    // the flush's order, as countEvent
    const row: HourlyIncrement = { campaignId: click.campaignId, adBlockId: click.adBlockId, hour: hourStart(click.createdAt), verifiedClicks: 1 };
    await this.counters.addHourly(manager, [row]);
    await this.counters.addReportHourly(manager, [withFields(row, UNKNOWN_SEGMENT)]);
    await this.counters.addCampaignVerifiedClick(manager, click.campaignId);
  }

  /**
   * A counted completion (docs/REWARDED_ADS.md), in the caller's transaction (the one that stores its reward): the
   * campaign's and block's totals and the hourly row of the completion's hour; `rewardCapped` also counts it in the
   * block's `rewardsCapped`.
   */
  async countCompletion(manager: EntityManager, completion: { campaignId: string; adBlockId: string; now: number; rewardCapped: boolean }): Promise<void> {
    const { campaignId, adBlockId, now, rewardCapped } = completion;
    // the flush's order (hourly rows, campaigns, blocks), so that the two never deadlock on each other's rows
    await this.counters.addHourly(manager, [{ campaignId, adBlockId, hour: hourStart(now), completions: 1, ...(rewardCapped ? { rewardsCapped: 1 } : {}) }]);
    await this.counters.addReportHourly(manager, [{ campaignId, adBlockId, hour: hourStart(now), completions: 1, ...UNKNOWN_SEGMENT }]);
    await this.counters.addCompletion(manager, campaignId, adBlockId, rewardCapped);
  }

  protected takeBuffered(): Map<string, Delta> | undefined {
    if (this.deltas.size === 0) return undefined;
    const deltas = this.deltas;
    this.deltas = new Map();
    this.roundDeltas = deltas;
    this.impressionDeltas = new Map();
    this.roundBill = undefined;
    return deltas;
  }

  protected override async *partsOf(deltas: Map<string, Delta>): AsyncGenerator<Map<string, Delta>> {
    if (deltas.size <= ROWS_PER_PART) {
      yield deltas;
      return;
    }
    // In id order (the keys start with the campaign id), so a part's rows lie close together: ids grow with time, as
    // rows are stored, and parts of scattered rows rewrote each page of the tables once per part instead of once per
    // flush. The keys are sorted as plain strings, cheaper than a comparator over the deltas, in runs with a turn of
    // the event loop between them (one sort of a second's 7,000 keys held the loop longer than any part's write),
    // and the runs merged as the parts are taken.
    const keys = [...deltas.keys()];
    const runs: string[][] = [];
    for (let i = 0; i < keys.length; i += SORT_RUN) {
      await nextTurn();
      runs.push(keys.slice(i, i + SORT_RUN).sort());
    }
    let part = new Map<string, Delta>();
    for (const key of mergeSortedRuns(runs)) {
      part.set(key, deltas.get(key)!);
      if (part.size < ROWS_PER_PART) continue;
      await nextTurn();
      yield part;
      part = new Map();
    }
    if (part.size > 0) {
      await nextTurn();
      yield part;
    }
  }

  protected putBack(deltas: Map<string, Delta>): void {
    this.leaveRound(deltas);
    for (const [key, delta] of deltas) this.mergeBack(key, delta);
  }

  protected async commit(clicks: ClickRecord[], buffered = new Map<string, Delta>()): Promise<boolean> {
    let deltas = buffered;
    if (deltas.size > 0) {
      try {
        this.roundBill ??= this.impressionsBilled();
        // The impressions are written once their bill (in Redis) answered. Clicks wait for it at most
        // CLICKS_WAIT_FOR_BILL_MS, then go without them: a frozen Redis, or a Redis Cluster slot whose master is gone
        // until its replica takes over, must not hold their answers (docs/OPERATIONS.md, Faults). A write of
        // impressions alone waits as long as the bill takes, but not while clicks wait behind it: it hands its
        // impressions back for a later write and ends its round, and the clicks go in the next one.
        if (clicks.length > 0) {
          if (!(await settledWithin(this.roundBill, CLICKS_WAIT_FOR_BILL_MS)))
            throw new Error(`impressions' bill not answered within ${CLICKS_WAIT_FOR_BILL_MS} ms`);
        } else {
          while (!(await settledWithin(this.roundBill, CLICKS_LOOKED_FOR_EVERY_MS))) {
            if (this.itemsWaiting > 0) {
              this.putBack(deltas);
              return false;
            }
          }
        }
      } catch (error) {
        // the impressions wait for a bill that succeeds; the clicks, billed on their own, are committed without them
        this.putBack(deltas);
        if (clicks.length === 0) throw error;
        this.logger.warn({ err: error }, 'impressions not billed yet: kept for the next write, the clicks committed without them');
        deltas = new Map();
      }
    }
    // on the deltas themselves, not the copies: a failed write puts them back with the spend already waived
    if (this.waivedSpend.size > 0) this.takeWaivedSpendOff(deltas);
    // Copies: the clicks are added to these rows, and on a failed write only the impression deltas go back.
    const rows = new Map([...deltas].map(([key, delta]) => [key, { ...delta }]));
    for (const click of clicks) {
      const segment = segmentOf(click);
      const day = click.day ?? '';
      const key = deltaKey(click.campaignId, click.adBlockId, hourStart(click.createdAt), segment, day);
      const delta = rows.get(key) ?? emptyDelta(click.campaignId, click.adBlockId, hourStart(click.createdAt), segment, day);
      if (click.status === 'unbilled') delta.unbilledClicks += 1;
      else if (click.status === 'invalid') delta.invalidClicks += 1;
      else delta.clicks += 1;
      delta.spendMicros += click.costMicros;
      delta.earningsMicros += click.earningsMicros;
      rows.set(key, delta);
    }
    const batch = new StatementBatch(clicks.length > 0);
    if (clicks.length > 0) await this.clickRows.insertMany(batch, clicks);
    await this.applyDeltas(batch, [...rows.values()]);
    await this.ledger.writeBatch(deltas, batch, commitDeadlineOf(clicks));
    // committed: in the database now, no longer unwritten
    this.leaveRound(deltas);
    for (const click of clicks) this.metrics.countClick(click.status);
    return true;
  }

  /** These deltas of the round are committed or back in the buffer: no longer the round's unwritten spend. */
  private leaveRound(deltas: Map<string, Delta>): void {
    // a round of one part hands out the round's own map: let go of it whole, never empty what the caller still reads
    if (deltas === this.roundDeltas) this.roundDeltas = new Map();
    else for (const [key, delta] of deltas) if (this.roundDeltas.get(key) === delta) this.roundDeltas.delete(key);
  }

  private takeWaivedSpendOff(deltas: Map<string, Delta>): void {
    for (const delta of deltas.values()) {
      const waived = this.waivedSpend.get(delta.campaignId);
      if (waived === undefined || delta.spendMicros === 0) continue;
      const taken = Math.min(waived, delta.spendMicros);
      delta.spendMicros -= taken;
      if (taken === waived) this.waivedSpend.delete(delta.campaignId);
      else this.waivedSpend.set(delta.campaignId, waived - taken);
    }
  }

  private async applyDeltas(manager: Queryable, deltas: Delta[]): Promise<void> {
    // A fixed order keeps concurrent writers (several processes) from deadlocking on each other's rows.
    deltas.sort(byRow);
    // The report rollup gets the deltas as they are (split by country and platform), stats_hourly their sums.
    await inChunks(hourlySums(deltas), UPDATE_CHUNK, (chunk) => this.counters.addHourly(manager, chunk));
    await inChunks(deltas, UPDATE_CHUNK, (chunk) => this.counters.addReportHourly(manager, chunk));

    const campaigns = new Map<string, CampaignCounterChange>();
    const blocks = new Map<string, BlockCounterChange>();
    for (const delta of deltas) {
      const day = delta.day;
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
    const campaignRows = [...campaigns.values()].sort((a, b) => compareIds(a.id, b.id));
    await inChunks(campaignRows, UPDATE_CHUNK, (chunk) => this.counters.addCampaignCounters(manager, chunk));
    const blockRows = [...blocks.values()].sort((a, b) => compareIds(a.id, b.id));
    await inChunks(blockRows, UPDATE_CHUNK, (chunk) => this.counters.addBlockCounters(manager, chunk));
  }

  private deltaFor(campaignId: string, adBlockId: string, hour: number, segment: Segment, day: string): Delta {
    const key = deltaKey(campaignId, adBlockId, hour, segment, day);
    let delta = this.deltas.get(key);
    if (!delta) {
      delta = emptyDelta(campaignId, adBlockId, hour, segment, day);
      this.deltas.set(key, delta);
    }
    return delta;
  }

  private impressionDeltaFor(campaignId: string, adBlockId: string, hour: number, segment: Segment, day: string): Delta {
    let last = this.lastSegmentKey;
    if (last.adBlockId !== adBlockId || last.country !== segment.country || last.platform !== segment.platform) {
      last = { adBlockId, ...segment, key: `${adBlockId}|${segment.country}|${segment.platform}` };
      this.lastSegmentKey = last;
    }
    let block = this.impressionDeltas.get(last.key);
    if (block === undefined || block.hour !== hour) {
      block = { hour, byCampaign: new Map() };
      this.impressionDeltas.set(last.key, block);
    }
    let delta = block.byCampaign.get(campaignId);
    // a campaign's budget day may change within an hour (zones a half or quarter hour off UTC)
    if (delta === undefined || delta.day !== day) {
      delta = this.deltaFor(campaignId, adBlockId, hour, segment, day);
      block.byCampaign.set(campaignId, delta);
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
    current.views += delta.views;
  }
}

function byRow(a: Delta, b: Delta): number {
  return (
    compareIds(a.campaignId, b.campaignId) ||
    compareIds(a.adBlockId, b.adBlockId) ||
    a.hour - b.hour ||
    compareIds(a.day, b.day) ||
    compareIds(a.country, b.country) ||
    compareIds(a.platform, b.platform)
  );
}

function noTraffic(): TrafficCounts {
  return { unbilledClicks: 0, invalidClicks: 0, invalidImpressions: 0, views: 0 };
}

function emptyDelta(campaignId: string, adBlockId: string, hour: number, segment: Segment, day: string): Delta {
  return {
    campaignId,
    adBlockId,
    hour,
    day,
    country: segment.country,
    platform: segment.platform,
    impressions: 0,
    clicks: 0,
    spendMicros: 0,
    earningsMicros: 0,
    ...noTraffic(),
  };
}

/** The deltas summed over country and platform: one `stats_hourly` row each, in the deltas' (sorted) order. */
function hourlySums(deltas: Delta[]): HourlyIncrement[] {
  const sums = new Map<string, HourlyIncrement & Omit<Delta, keyof Segment | 'day'>>();
  for (const delta of deltas) {
    const key = `${delta.campaignId}|${delta.adBlockId}|${delta.hour}`;
    const sum = sums.get(key);
    if (sum === undefined) {
      const { country: _country, platform: _platform, day: _day, ...counts } = delta;
      sums.set(key, counts);
      continue;
    }
    sum.impressions += delta.impressions;
    sum.clicks += delta.clicks;
    sum.spendMicros += delta.spendMicros;
    sum.earningsMicros += delta.earningsMicros;
    addTraffic(sum, delta);
  }
  return [...sums.values()];
}

function segmentOf(facts: { country?: string | null; platform?: string | null }): Segment {
  return { country: facts.country ?? '', platform: facts.platform ?? '' };
}

function addTraffic(into: TrafficCounts, delta: TrafficCounts): void {
  for (const column of TRAFFIC_COLUMNS) into[column] += delta[column];
}

function deltaKey(campaignId: string, adBlockId: string, hour: number, segment: Segment, day: string): string {
  return `${campaignId}|${adBlockId}|${hour}|${day}|${segment.country}|${segment.platform}`;
}

/** How long a write carrying clicks waits for the bill of the impressions riding along before leaving them out. */
const CLICKS_WAIT_FOR_BILL_MS = 200;
/** How often a write of impressions alone, waiting for their bill, looks for clicks waiting behind it. */
const CLICKS_LOOKED_FOR_EVERY_MS = 50;

/**
 * Whether the promise resolved within `ms` (false: not yet; it goes on, and a later write awaits it again); its
 * rejection is thrown.
 */
function settledWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => resolve(false)), ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The earliest of the clicks' commit deadlines: a group commits only while every click's answer still waits for it. */
function commitDeadlineOf(clicks: ClickRecord[]): number | undefined {
  let earliest: number | undefined;
  for (const click of clicks) if (click.commitBy !== undefined && (earliest === undefined || click.commitBy < earliest)) earliest = click.commitBy;
  return earliest;
}
