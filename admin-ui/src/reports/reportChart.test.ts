import { describe, expect, it } from 'vitest';
import { chartPoints } from './reportChart';

describe('chartPoints', () => {
  it('sums the rows by the first dimension, in the order they appear', () => {
    const rows = [
      { day: '2026-12-01', country: 'DE', impressions: 10, clicks: 1 },
      { day: '2026-12-01', country: 'US', impressions: 5, clicks: 2 },
      { day: '2026-12-02', country: 'DE', impressions: 7, clicks: 0 },
    ];
    expect(chartPoints({ groupBy: ['day', 'country'], rows })).toEqual([
      { label: '2026-12-01', impressions: 15, clicks: 3 },
      { label: '2026-12-02', impressions: 7, clicks: 0 },
    ]);
  });

  it('reads a dimension under its row key (campaign → campaignId) and draws nothing without one', () => {
    expect(chartPoints({ groupBy: ['campaign'], rows: [{ campaignId: 'c1', impressions: 3, clicks: 1 }] })).toEqual([
      { label: 'c1', impressions: 3, clicks: 1 },
    ]);
    expect(chartPoints({ groupBy: [], rows: [{ impressions: 3, clicks: 1 }] })).toEqual([]);
  });
});
