import type { ReportAnswer } from '../dataProvider';

/** The key a dimension has in a report row (the API's names). */
export const ROW_KEY: Record<string, string> = {
  hour: 'hour',
  day: 'day',
  campaign: 'campaignId',
  adBlock: 'adBlockId',
  country: 'country',
  platform: 'platform',
};

export interface ChartPoint {
  label: string;
  impressions: number;
  clicks: number;
}

/**
 * The report's rows summed by its first dimension, in the order they first appear (the API sorts rows by their
 * dimensions): what the chart draws. Empty without a dimension.
 */
export function chartPoints(report: Pick<ReportAnswer, 'groupBy' | 'rows'>): ChartPoint[] {
  const first = report.groupBy[0];
  if (first === undefined) return [];
  const key = ROW_KEY[first] ?? first;
  const points = new Map<string, ChartPoint>();
  for (const row of report.rows) {
    const label = String(row[key] ?? '');
    const point = points.get(label) ?? { label, impressions: 0, clicks: 0 };
    point.impressions += Number(row.impressions ?? 0);
    point.clicks += Number(row.clicks ?? 0);
    points.set(label, point);
  }
  return [...points.values()];
}
