import { Injectable } from '@nestjs/common';
import { fromMicros } from '../common/money';
import { seriesWindow, sumIntoBuckets, type SeriesRequest } from './series';
import { StatsRepository } from './stats.repository';

const SERIES_COLUMNS = [
  'impressions',
  'clicks',
  'conversions',
  'verifiedClicks',
  'spendMicros',
  'earningsMicros',
  'unbilledClicks',
  'invalidClicks',
  'invalidImpressions',
] as const;

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
      conversions: p.conversions,
      earnings: fromMicros(p.earningsMicros),
    }));
  }

  private async series(where: { campaignId: string } | { adBlockId: string }, request: SeriesRequest, now: number) {
    const window = seriesWindow(request, now);
    const rows = await this.stats.hourlyRows(where, window.first, window.to - 1);
    return sumIntoBuckets(window, rows, SERIES_COLUMNS);
  }
}
