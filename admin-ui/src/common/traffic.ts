/**
 * Traffic the service answered but did not bill, shown beside the billed figures (docs/TRUST_AND_SAFETY.md):
 * clicks while a campaign was not billable, and general invalid traffic (bots, empty agents, data centres, clicks
 * too soon after their impression). None of it is in impressions, clicks, CTR, cost or earnings.
 */
export const NOT_BILLED_METRICS = [
  {
    key: 'invalidImpressions',
    label: 'Invalid impressions',
    color: '#8d6e63',
    help: 'Ads served to bots, empty agents or data centres: answered, never billed',
  },
  {
    key: 'invalidClicks',
    label: 'Invalid clicks',
    color: '#c62828',
    help: 'Clicks by bots, on invalid impressions, or sooner than the minimum delay: never billed',
  },
  {
    key: 'unbilledClicks',
    label: 'Unbilled clicks',
    color: '#ef6c00',
    help: 'Clicks while the campaign was paused, ended, outside its dates or out of budget',
  },
] as const;

export const NOT_BILLED_KEYS: string[] = NOT_BILLED_METRICS.map((metric) => metric.key);

export type Counts = { impressions?: number; invalidImpressions?: number; clicks?: number; invalidClicks?: number };

/** Share of all impressions answered that were invalid traffic, 0..1 (0 without any). */
export function invalidImpressionShare(record: Counts): number {
  const invalid = Number(record.invalidImpressions) || 0;
  const all = (Number(record.impressions) || 0) + invalid;
  return all > 0 ? invalid / all : 0;
}

/** Share of all clicks recorded that were invalid traffic, 0..1 (0 without any); unbilled clicks are valid. */
export function invalidClickShare(record: Counts & { unbilledClicks?: number }): number {
  const invalid = Number(record.invalidClicks) || 0;
  const all = (Number(record.clicks) || 0) + (Number(record.unbilledClicks) || 0) + invalid;
  return all > 0 ? invalid / all : 0;
}
