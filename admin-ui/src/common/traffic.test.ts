import { describe, expect, it } from 'vitest';
import { sumSeries } from './SeriesChart';
import { invalidClickShare, invalidImpressionShare, NOT_BILLED_KEYS } from './traffic';

describe('not billed traffic', () => {
  it('should tell the invalid share of all impressions answered, 0 without any', () => {
    expect(invalidImpressionShare({ impressions: 1, invalidImpressions: 300 })).toBe(300 / 301);
    expect(invalidImpressionShare({ impressions: 0, invalidImpressions: 0 })).toBe(0);
    expect(invalidImpressionShare({})).toBe(0);
  });

  it('should count unbilled clicks as valid in the invalid click share', () => {
    expect(invalidClickShare({ clicks: 1, unbilledClicks: 2, invalidClicks: 1 })).toBe(0.25);
    expect(invalidClickShare({ clicks: 0 })).toBe(0);
  });

  it('should sum the not billed counters of several series bucket by bucket', () => {
    const a = [{ time: 0, invalidImpressions: 3, invalidClicks: 1, unbilledClicks: 0 }];
    const b = [
      { time: 0, invalidImpressions: 2, invalidClicks: 0, unbilledClicks: 4 },
      { time: 1, invalidImpressions: 1 },
    ];
    expect(sumSeries([a, b], NOT_BILLED_KEYS)).toEqual([
      { time: 0, invalidImpressions: 5, invalidClicks: 1, unbilledClicks: 4 },
      { time: 1, invalidImpressions: 1, invalidClicks: 0, unbilledClicks: 0 },
    ]);
  });
});
