import { Injectable } from '@nestjs/common';
import { DAY_MS, HOUR_MS } from '../common/clock';
import { ValidationError } from '../common/errors';
import { fromMicros } from '../common/money';
import { StatsRepository } from './stats.repository';

export interface SeriesRequest {
  from?: number;
  to?: number;
  granularity?: 'hour' | 'day';
}

export interface SeriesPoint {
  time: number;
  impressions: number;
  clicks: number;
  conversions: number;
  verifiedClicks: number;
  spendMicros: number;
  earningsMicros: number;
  unbilledClicks: number;
  invalidClicks: number;
  invalidImpressions: number;
  views: number;
}

const MAX_BUCKETS = 5000;
const DEFAULT_SPAN_MS = 7 * DAY_MS;

/** Time series for charts, summed from the hourly counters into UTC hour or day buckets (zero-filled). */
@Injectable()
export class StatsService {
  constructor(private readonly stats: StatsRepository) {}

  async campaignSeries(campaignId: string, request: SeriesRequest, now: number) {
    const points = await this.series({ campaignId }, request, now);
    return points.map((p) => ({
      time: p.time,
      impressions: p.impressions,
      clicks: p.clicks,
      verifiedClicks: p.verifiedClicks,
      unbilledClicks: p.unbilledClicks,
      invalidClicks: p.invalidClicks,
      invalidImpressions: p.invalidImpressions,
      views: p.views,
      conversions: p.conversions,
      cost: fromMicros(p.spendMicros),
    }));
  }

  async adBlockSeries(adBlockId: string, request: SeriesRequest, now: number) {
    const points = await this.series({ adBlockId }, request, now);
    return points.map((p) => ({
      time: p.time,
      impressions: p.impressions,
      clicks: p.clicks,
      unbilledClicks: p.unbilledClicks,
      invalidClicks: p.invalidClicks,
      invalidImpressions: p.invalidImpressions,
      views: p.views,
      conversions: p.conversions,
      earnings: fromMicros(p.earningsMicros),
    }));
  }

  private async series(where: { campaignId: string } | { adBlockId: string }, request: SeriesRequest, now: number): Promise<SeriesPoint[]> {
    const bucket = request.granularity === 'hour' ? HOUR_MS : DAY_MS;
    const to = request.to ?? now;
    const from = request.from ?? to - DEFAULT_SPAN_MS;
    if (from >= to) throw ValidationError.of('from', 'must be before to');
    const first = from - (from % bucket);
    const buckets = Math.ceil((to - first) / bucket);
    if (buckets > MAX_BUCKETS) throw ValidationError.of('from', `and to span more than ${MAX_BUCKETS} buckets; use a coarser granularity`);

    const rows = await this.stats.hourlyRows(where, first, to - 1);
    const points = Array.from({ length: buckets }, (_, i) => ({
      time: first + i * bucket,
      impressions: 0,
      clicks: 0,
      conversions: 0,
      verifiedClicks: 0,
      spendMicros: 0,
      earningsMicros: 0,
      unbilledClicks: 0,
      invalidClicks: 0,
      invalidImpressions: 0,
      views: 0,
    }));
    for (const row of rows) {
      const point = points[Math.floor((row.hour - first) / bucket)];
      point.impressions += row.impressions;
      point.clicks += row.clicks;
      point.conversions += row.conversions;
      point.verifiedClicks += row.verifiedClicks;
      point.spendMicros += row.spendMicros;
      point.earningsMicros += row.earningsMicros;
      point.unbilledClicks += row.unbilledClicks;
      point.invalidClicks += row.invalidClicks;
      point.invalidImpressions += row.invalidImpressions;
      point.views += row.views;
    }
    return points;
  }
}
