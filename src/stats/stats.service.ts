import { hourStart } from '../common/clock';
import { Injectable } from '@nestjs/common';
import { fromMicros } from '../common/money';
import { EVENT_COUNTER_COLUMN_LIST, EVENT_COUNTER_COLUMNS, eventCountsOf, type EventType } from '../conversions/event-types';
import { seriesWindow, sumIntoBuckets, type SeriesRequest } from './series';
import { type CampaignBlockTotals, StatsRepository } from './stats.repository';
import { ReportRowsRepository, type ReportRawRow, type ReportRowsQuery } from './report-rows.repository';
import { withFields } from '../common/with-fields';
import type { ZoneSchedule } from '../common/time-zone';

const SERIES_COLUMNS = [
  'impressions',
  'clicks',
  'verifiedClicks',
  'spendMicros',
  'earningsMicros',
  'unbilledClicks',
  'invalidClicks',
  'invalidImpressions',
  'views',
  'completions',
  'rewardsCapped',
  ...EVENT_COUNTER_COLUMN_LIST,
] as const;

/** Time series for charts, summed from the hourly counters into UTC hours or the owner account's days (zero-filled). */
@Injectable()
export class StatsService {
  constructor(
    private readonly stats: StatsRepository,
    private readonly reportRollup: ReportRowsRepository,
  ) {}

  /**
   * Whether the campaign's impressions on the block were counted within [from, to] (whole UTC hours: the hour of
   * each end included): a click without its served mark after Redis lost them may be on one of those.
   */
  async servedOnBlockBetween(campaignId: string, adBlockId: string, from: number, to: number): Promise<boolean> {
    const rows = await this.stats.hourlyRows({ campaignId }, hourStart(from), hourStart(to));
    return rows.some((row) => row.adBlockId === adBlockId && Number(row.impressions) > 0);
  }

  /**
   * Impressions and attributed events of `eventType` per (campaign, ad block) since `since` (from its UTC hour), for
   * campaigns that optimize toward that event, in chunks of CHUNK campaigns a query.
   */
  async blockEventTotals(campaignIds: readonly string[], eventType: EventType, since: number): Promise<CampaignBlockTotals[]> {
    const CHUNK = 500;
    const totals: CampaignBlockTotals[] = [];
    for (let i = 0; i < campaignIds.length; i += CHUNK) {
      totals.push(...(await this.stats.blockEventTotals(campaignIds.slice(i, i + CHUNK), EVENT_COUNTER_COLUMNS[eventType], hourStart(since))));
    }
    return totals;
  }

  /** `conversions` counts the campaign's optimization event, as its detail does; `events` every type. */
  async campaignSeries(campaignId: string, optimizationEvent: EventType, request: SeriesRequest, now: number, zones: ZoneSchedule | null = null) {
    const points = await this.series({ campaignId }, request, now, zones);
    return points.map((p) => ({
      time: p.time,
      impressions: p.impressions,
      clicks: p.clicks,
      verifiedClicks: p.verifiedClicks,
      unbilledClicks: p.unbilledClicks,
      invalidClicks: p.invalidClicks,
      invalidImpressions: p.invalidImpressions,
      views: p.views,
      completions: p.completions,
      conversions: p.events[optimizationEvent],
      events: p.events,
      cost: fromMicros(p.spendMicros),
    }));
  }

  async adBlockSeries(adBlockId: string, request: SeriesRequest, now: number, zones: ZoneSchedule | null = null) {
    const points = await this.series({ adBlockId }, request, now, zones);
    return points.map((p) => ({
      time: p.time,
      impressions: p.impressions,
      clicks: p.clicks,
      unbilledClicks: p.unbilledClicks,
      invalidClicks: p.invalidClicks,
      invalidImpressions: p.invalidImpressions,
      views: p.views,
      completions: p.completions,
      rewardsCapped: p.rewardsCapped,
      conversions: p.events.conversion,
      earnings: fromMicros(p.earningsMicros),
    }));
  }

  /** The report rollup's grouped rows, streamed (docs/CONTRACT.md §19). */
  reportRows(query: ReportRowsQuery): AsyncGenerator<ReportRawRow> {
    return this.reportRollup.rows(query);
  }

  /** `zones`: the owner account's, whose local days the day buckets are (UTC days without one). */
  private async series(where: { campaignId: string } | { adBlockId: string }, request: SeriesRequest, now: number, zones: ZoneSchedule | null) {
    const window = seriesWindow(request, now, zones);
    const rows = await this.stats.seriesRows(where, window.first, window.to - 1);
    return sumIntoBuckets(window, rows, SERIES_COLUMNS).map((point) => withFields(point, { events: eventCountsOf(point) }));
  }
}
